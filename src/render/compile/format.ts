/** format: value-reference formats (number, currency, percent, date) through Intl. */
import type { ValueFormat } from "./model";

/** FormatDefaults apply where a format leaves locale or time zone out. */
export interface FormatDefaults {
  locale: string;
  timeZone: string;
}

// UTC rather than the host's zone, so the same render gives the same PDF on every machine,
// and a date-only value ("2024-01-31") is shown as that day.
export const DEFAULT_FORMAT: FormatDefaults = { locale: "en-US", timeZone: "UTC" };

type Formatter = (value: unknown) => string | undefined;

const NUMERIC_STRING = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** toNumber reads a number, or a numeric string in plain decimal notation ("12.50"); undefined otherwise. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  // Money is often sent as a decimal string to keep its digits; accept plain decimal notation only.
  if (typeof value === "string" && NUMERIC_STRING.test(value)) return Number(value);
  return undefined;
}

/** toDate reads epoch milliseconds, or an ISO date or date-time where no offset means UTC; undefined otherwise. */
export function toDate(value: unknown): Date | undefined {
  let date: Date | undefined;
  if (typeof value === "number") date = new Date(value);
  else if (typeof value === "string" && ISO_DATE.test(value)) {
    // JavaScript reads a date-time without an offset as host-local time; read it as UTC instead.
    const hasOffset = value.length === 10 || /(Z|[+-]\d{2}:\d{2})$/.test(value);
    date = new Date(hasOffset ? value : value + "Z");
  }
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** makeFormatter builds the formatter of a format; it throws RangeError for a bad locale, zone, currency or digits. */
export function makeFormatter(format: ValueFormat, defaults: FormatDefaults = DEFAULT_FORMAT): Formatter {
  const locale = format.locale ?? defaults.locale;
  if (format.type === "date") {
    const intl = new Intl.DateTimeFormat(locale, {
      dateStyle: format.dateStyle ?? "medium",
      timeZone: format.timeZone ?? defaults.timeZone,
    });
    return (value) => {
      const date = toDate(value);
      return date && intl.format(date);
    };
  }
  const intl = new Intl.NumberFormat(locale, {
    style: format.type === "number" ? "decimal" : format.type,
    currency: format.currency,
    minimumFractionDigits: format.minimumFractionDigits,
    maximumFractionDigits: format.maximumFractionDigits,
  });
  return (value) => {
    const number = toNumber(value);
    return number === undefined ? undefined : intl.format(number);
  };
}

/** formatProblem says why a format cannot be used, or answers undefined when Intl accepts it. */
export function formatProblem(format: ValueFormat): string | undefined {
  if (format.type === "currency" && !format.currency) return "currency is required with format type currency";
  try {
    makeFormatter(format);
    return undefined;
  } catch (error) {
    return error instanceof RangeError ? error.message : String(error);
  }
}

// Every render's formatters come from here: building an Intl object costs far more than using it (a DateTimeFormat
// ~0.06 ms), and renders of a template repeat the same few formats. Keyed by what the Intl object depends on;
// bounded (the oldest goes first), since drafts and previews can bring formats of every shape.
const shared = new Map<string, Formatter>();
const MAX_SHARED = 1000;

/** sharedFormatter answers the process-wide formatter of a format under these defaults, built on first use. */
function sharedFormatter(format: ValueFormat, defaults: FormatDefaults): Formatter {
  const key = JSON.stringify([format, defaults.locale, defaults.timeZone]);
  let formatter = shared.get(key);
  if (!formatter) {
    formatter = makeFormatter(format, defaults);
    if (shared.size >= MAX_SHARED) shared.delete(shared.keys().next().value!);
    shared.set(key, formatter);
  }
  return formatter;
}

/** FormatterCache finds each format's formatter once per render (by the format object), from the shared ones. */
export class FormatterCache {
  private readonly built = new Map<ValueFormat, Formatter>();
  constructor(private readonly defaults: FormatDefaults = DEFAULT_FORMAT) {}

  /** format gives the formatted text, or undefined when the value is not a number or date the format can read. */
  format(format: ValueFormat, value: unknown): string | undefined {
    let formatter = this.built.get(format);
    if (!formatter) {
      formatter = sharedFormatter(format, this.defaults);
      this.built.set(format, formatter);
    }
    return formatter(value);
  }
}
