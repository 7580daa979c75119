/** Computed values: JSONata parsed when a template is checked (a syntax error names its position), evaluated with `$`
 * the current value and `$$` the whole data, in a template, a table and a repeat; and within limits that stop a
 * runaway expression in seconds without holding up the event loop. */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/errors";
import { compileTemplate } from "../../../src/render/compile/compile";
import { Evaluation, EXPRESSION_LIMITS, parseExpression } from "../../../src/render/compile/expressions";
import type { CompositionNode } from "../../../src/render/compile/model";
import { body } from "./helpers";

const plain = (html: string) => html.replace(/[\u00a0\u202f]/g, " ");

async function evaluate(expression: string, current: unknown, root: unknown = current): Promise<unknown> {
  const parsed = parseExpression(expression);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return new Evaluation(root).evaluate(parsed.ok, current, "/x/expression");
}

// The time limit is shortened here: what is tested is that it holds, not how long it is.
const TIME_MS = 300;

async function failure(expression: string, data: unknown = {}): Promise<ApiError> {
  const parsed = parseExpression(expression);
  if ("problem" in parsed) throw new Error(parsed.problem);
  try {
    await new Evaluation(data, TIME_MS).evaluate(parsed.ok, data, "/x/expression");
  } catch (error) {
    return error as ApiError;
  }
  throw new Error(`${expression} did not fail`);
}

describe("parsing", () => {
  test("a syntax error is a problem that names its position", () => {
    expect(parseExpression("quantity *")).toEqual({ problem: "is not a valid JSONata expression: Unexpected end of expression (at character 10)" });
    expect(parseExpression("$sum(lines.(quantity * price)")).toMatchObject({ problem: expect.stringContaining("at character") });
  });

  test("a template with a bad expression does not compile, pointed at the expression", () => {
    const content: CompositionNode = {
      type: "container",
      children: [
        { type: "text", text: "ok" },
        { type: "text", text: { expression: "1 +* 2" } },
        { type: "table", source: { expression: "lines[" }, columns: [{ id: "a", header: "A", value: { parts: ["x", { expression: "a b c (" }] } }] },
      ],
    };
    const result = compileTemplate({ content });
    expect("problems" in result && result.problems.map((p) => p.path)).toEqual([
      "/content/children/1/text/expression",
      "/content/children/2/source/expression",
      "/content/children/2/columns/0/value/parts/1/expression",
    ]);
  });
});

describe("evaluation", () => {
  const invoice = { taxRate: 0.19, lines: [{ quantity: 2, price: 10 }, { quantity: 3, price: 0.1 }] };

  test("arithmetic and functions over the data", async () => {
    expect(await evaluate("$sum(lines.(quantity * price))", invoice)).toBe(20.3);
    expect(await evaluate("$round($sum(lines.(quantity * price)) * taxRate, 2)", invoice)).toBe(3.86);
    expect(await evaluate("($net := $sum(lines.(quantity * price)); $net + $round($net * taxRate, 2))", invoice)).toBe(24.16);
  });

  test("$ is the current value and $$ the whole data", async () => {
    expect(await evaluate("quantity * price + $$.taxRate", invoice.lines[0], invoice)).toBe(20.19);
    expect(await evaluate("$", "a paragraph", invoice)).toBe("a paragraph");
  });

  test("a function is no value", async () => {
    expect(await evaluate("$sum", {})).toBeUndefined();
    expect(await evaluate("function($x) { $x }", {})).toBeUndefined();
  });

  test("in a template: text, parts, table cells, a repeat and a computed source", async () => {
    const html = await body(
      {
        type: "container",
        children: [
          {
            type: "table",
            source: { expression: "lines[quantity > 1]" },
            columns: [{ id: "amount", header: "Amount", value: { expression: "quantity * price", format: { type: "currency", currency: "EUR" } } }],
          },
          { type: "repeat", source: { path: ["lines"] }, children: [{ type: "text", text: { parts: ["share ", { expression: "quantity / $count($$.lines)" }] } }] },
          { type: "text", text: { expression: "$sum(lines.(quantity * price))", prefix: "Total: ", suffix: " EUR" } },
          { type: "text", text: { expression: "missing.value", fallback: "—" } },
        ],
      },
      invoice,
    );
    // lines[quantity > 1] matches both rows; one match would be the row itself, and is still one row.
    expect(plain(html)).toBe(
      "<div><table><thead><tr><th>Amount</th></tr></thead><tbody><tr><td>€20.00</td></tr><tr><td>€0.30</td></tr></tbody></table>" +
        "<div><div>share 1</div><div>share 1.5</div></div><div>Total: 20.3 EUR</div><div>—</div></div>",
    );
    const one = await body({ type: "repeat", source: { expression: "lines[quantity = 3]" }, children: [{ type: "text", text: { path: ["price"] } }] }, invoice);
    expect(one).toBe("<div><div>0.1</div></div>");
  });

  test("an error names the expression by its pointer and the position", async () => {
    const error = await failure('"a" * 2');
    expect(error.code).toBe("DATA_INVALID");
    expect(error.details).toEqual([{ path: "/x/expression", message: 'failed: The left side of the "*" operator must evaluate to a number (at character 5)' }]);
  });
});

describe("limits", () => {
  test.each([
    ["a range over 1e7", "$sum([1..100000000])"],
    ["a sequence over the item limit", `$sum([1..${EXPRESSION_LIMITS.items + 1}])`],
    ["deep recursion", "($f := function($n) { 1 + $f($n + 1) }; $f(0))"],
    ["a wide $pad", "$length($pad('x', 100000000))"],
    ["a string that doubles", "$reduce([1..40], function($a, $b) { $a & $a }, 'x')"],
  ])("%s: LIMIT_EXCEEDED at once", async (_name, expression) => {
    const started = performance.now();
    const error = await failure(expression);
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.details?.[0]?.path).toBe("/x/expression");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("endless tail recursion stops at the time limit while the event loop goes on", async () => {
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const started = performance.now();
    const error = await failure("($f := function($n) { $f($n + 1) }; $f(0))");
    const took = performance.now() - started;
    clearInterval(timer);
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain(`more than ${TIME_MS} ms of evaluation`);
    expect(took).toBeGreaterThanOrEqual(TIME_MS);
    expect(took).toBeLessThan(TIME_MS + 2000);
    // A 10 ms timer kept firing: the evaluation gave the loop back every few milliseconds.
    expect(ticks).toBeGreaterThan(TIME_MS / 10 / 4);
    expect(longestGap).toBeLessThan(250);
  });

  test("the time limit is one render's, all its expressions together", async () => {
    // ~1-20 ms each (a busy 2-core CI machine at the top): 20,000 items took the whole limit there in one evaluation.
    const parsed = parseExpression("$count([1..2000].($ * 2))");
    if ("problem" in parsed) throw new Error(parsed.problem);
    const evaluation = new Evaluation({}, TIME_MS);
    let error: unknown;
    let evaluated = 0;
    try {
      for (; evaluated < 10_000; evaluated++) await evaluation.evaluate(parsed.ok, {}, "/x");
    } catch (caught) {
      error = caught;
    }
    expect((error as ApiError).code).toBe("LIMIT_EXCEEDED");
    // Each evaluation alone is well within the limit; together they are not.
    expect(evaluated).toBeGreaterThan(1);
  });
});
