import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/errors";
import { localeProblem, parseTemplate, renderString, TemplateSyntaxError } from "../../src/render/strings";

const data = {
  customer: { name: "Ada Lovelace", vip: true, "first-name": "Ada" },
  total: 1234.5,
  price: "19.90",
  rate: 0.256,
  n: 3.14159,
  count: 0,
  due: "2026-01-31",
  at: "2026-01-31T23:30:00Z",
  items: [{ price: 10 }, { price: 2.5 }],
  tags: ["a", "b"],
  nothing: null,
  größe: "unicode key",
};

describe("renderString", () => {
  const cases: [string, string, string, { locale?: string; timeZone?: string }?][] = [
    ["plain text is copied as it is", "Hello, world", "Hello, world"],
    ["a path", "Dear {{customer.name}},", "Dear Ada Lovelace,"],
    ["spaces inside the braces", "{{  customer.name  }}", "Ada Lovelace"],
    ["an array index", "{{items.1.price}}", "2.5"],
    ["a key with a dash", "{{customer.first-name}}", "Ada"],
    ["a key in another script", "{{größe}}", "unicode key"],
    ["booleans and zero", "{{customer.vip}} {{count}}", "true 0"],
    ["$root reads from the whole data", "{{$root.customer.name}}", "Ada Lovelace"],
    ["{{.}} is the data itself when it is a scalar", "{{.}}", ""],
    ["a missing value is empty", "[{{customer.phone}}]", "[]"],
    ["null is empty", "[{{nothing}}]", "[]"],
    ["an object or array is empty", "[{{customer}}][{{tags}}]", "[][]"],
    ["a fallback for a missing value", "{{customer.phone ?? n/a}}", "n/a"],
    ["a fallback is not used for a present value", "{{customer.name ?? n/a}}", "Ada Lovelace"],
    ["a fallback is shown unformatted", "{{missing | currency EUR ?? —}}", "—"],
    ["currency", "{{total | currency EUR}}", "€1,234.50"],
    ["currency with a locale", "{{total | currency EUR de-DE}}", "1.234,50\u00a0€"],
    ["currency with digits", "{{total | currency USD 0}}", "$1,235"],
    ["a numeric string is a number", "{{price | currency EUR}}", "€19.90"],
    ["percent", "{{rate | percent}}", "26%"],
    ["percent with digits", "{{rate | percent 1}}", "25.6%"],
    ["number with fraction digits", "{{n | number 2}}", "3.14"],
    ["number without digits", "{{total | number}}", "1,234.5"],
    ["number tokens in any order", "{{total | number de-DE 1}}", "1.234,5"],
    ["date (medium by default)", "{{due | date}}", "Jan 31, 2026"],
    ["date long", "{{due | date long}}", "January 31, 2026"],
    ["date short", "{{due | date short}}", "1/31/26"],
    ["date in a locale", "{{due | date long fr-FR}}", "31 janvier 2026"],
    ["a value a format cannot read is shown as it is", "{{customer.name | number 2}}", "Ada Lovelace"],
    ["the request locale is the default", "{{total | number 2}}", "1.234,50", { locale: "de-DE" }],
    ["a placeholder locale wins over the request's", "{{total | number 2 en-US}}", "1,234.50", { locale: "de-DE" }],
    ["the request time zone moves the day", "{{at | date}}", "Feb 1, 2026", { timeZone: "Europe/Berlin" }],
    ["UTC is the default time zone", "{{at | date}}", "Jan 31, 2026"],
    ["no HTML escaping", "{{x}}", "<b>&amp;</b>"],
    ["{{{{ is a literal {{", "{{{{customer.name}}", "{{customer.name}}"],
    ["a third brace is a literal {", "{{{customer.name}}}", "{Ada Lovelace}"],
    ["single braces are text", "{a} }} {", "{a} }} {"],
    ["adjacent placeholders", "{{count}}{{customer.vip}}", "0true"],
  ];
  for (const [name, template, expected, options] of cases) {
    test(name, () => {
      expect(renderString(template, { ...data, x: "<b>&amp;</b>" }, options)).toBe(expected);
    });
  }

  test("{{.}} is the current value", () => {
    expect(renderString("{{.}}", "just text")).toBe("just text");
  });

  test("the text is capped", () => {
    expect(() => renderString("{{s}}{{s}}", { s: "x".repeat(60) }, { maxLength: 100 })).toThrow(ApiError);
    expect(renderString("{{s}}", { s: "x".repeat(100) }, { maxLength: 100 })).toHaveLength(100);
  });
});

describe("parseTemplate errors", () => {
  const cases: [string, string, string][] = [
    ["unclosed", "Hello {{name", "unclosed placeholder at offset 6"],
    ["empty", "a{{ }}b", "empty placeholder at offset 1"],
    ["a space inside a path", "{{first name}}", 'unexpected character " " in path at offset 7'],
    ["an empty segment", "{{a..b}}", "empty path segment at offset 4"],
    ["a leading dot", "{{.a}}", "empty path segment at offset 2"],
    ["a nested brace", "{{a {{b}}", 'unexpected character " " in path at offset 3'],
    ["a block marker is not a path", "{{#each items}}", 'unexpected character "#" in path at offset 2'],
    ["an unknown format", "x {{total | money}}", 'unknown format "money"; use number, currency, percent or date at offset 12'],
    ["no format after the pipe", "{{total | }}", "expected a format after | at offset 9"],
    ["two pipes", "{{total | number | percent}}", "only one | format is allowed at offset 17"],
    ["currency without a code", "{{total | currency}}", "currency needs a code such as EUR at offset 10"],
    ["digits out of range", "{{total | number 21}}", 'unexpected "21" in a number format at offset 17'],
    ["digits twice", "{{total | number 1 2}}", "fraction digits given twice at offset 19"],
    ["a date style on a number", "{{total | number long}}", 'unexpected "long" in a number format at offset 17'],
    ["digits on a date", "{{due | date 2}}", 'unexpected "2" in a date format at offset 13'],
    ["a lowercase currency code", "{{total | currency eur}}", "currency needs a code such as EUR at offset 10"],
    ["$root alone", "{{$root}}", "expected a path after $root at offset 2"],
    ["a pipe without a path", "{{| number}}", "expected a path at offset 0"],
    ["offsets count UTF-16 code units", "😀{{ }}", "empty placeholder at offset 2"],
  ];
  for (const [name, template, message] of cases) {
    test(name, () => {
      let error: unknown;
      try {
        parseTemplate(template);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TemplateSyntaxError);
      expect((error as Error).message).toBe(message);
    });
  }

  test("a placeholder is a value reference", () => {
    expect(parseTemplate("Total: {{ $root.total | currency EUR 2 de-DE ?? none }}!")).toEqual([
      "Total: ",
      {
        offset: 7,
        reference: {
          path: ["total"],
          scope: "root",
          format: { type: "currency", currency: "EUR", minimumFractionDigits: 2, maximumFractionDigits: 2, locale: "de-DE" },
          fallback: "none",
        },
      },
      "!",
    ]);
  });
});

describe("localeProblem", () => {
  test("accepts real locales and zones", () => {
    expect(localeProblem({ locale: "de-CH", timeZone: "America/New_York" })).toBeUndefined();
    expect(localeProblem({})).toBeUndefined();
  });
  test("names the bad field", () => {
    expect(localeProblem({ locale: "not a locale" })?.field).toBe("locale");
    expect(localeProblem({ timeZone: "Mars/Olympus" })?.field).toBe("timeZone");
  });
});
