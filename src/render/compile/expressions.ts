/**
 * expressions: computed values — JSONata expressions (the `jsonata` package) parsed when a template is checked and
 * evaluated while it renders, within limits.
 *
 * Why evaluation runs here, on the server's thread, and not in a worker thread: jsonata 2.x evaluates step by step
 * through async functions and awaits a hook before every step, so a step guard can both stop a runaway expression
 * and hand the event loop back to other requests (EXPRESSION_SLICE_MS) without the cost of copying the data to
 * another thread for every render. docs/decisions.md "Computed values" has the measurements. No JavaScript is
 * evaluated: JSONata reads only own properties of the data and calls only its own functions.
 */
import jsonata from "jsonata";
import { ApiError } from "../../errors";

/** ExpressionLimits bound one render's evaluation of its computed values. */
export const EXPRESSION_LIMITS = {
  /** Milliseconds of evaluation per render, all its expressions together (time handed to other work not counted). */
  timeMs: 2000,
  /** Nested evaluation steps (JSONata's own stack guard): deep recursion stops here. */
  depth: 500,
  /** Items in one sequence (JSONata's own guard; also caps a range such as [1..n]). */
  items: 1_000_000,
  /** Characters in one step's result, and in $pad's. */
  chars: 1_000_000,
  /** Characters of new strings (function results and `&`) per render, all steps together. */
  totalChars: 10_000_000,
} as const;

// Evaluation gives the event loop back this often, so /health and other requests are answered meanwhile.
const EXPRESSION_SLICE_MS = 5;

/** Expression is a parsed JSONata expression, ready to evaluate. */
export type Expression = jsonata.Expression;

interface JsonataError {
  code?: string;
  position?: number;
  token?: string;
  message?: string;
}

const ENTRY = Symbol.for("jsonata.__evaluate_entry");
const EXIT = Symbol.for("jsonata.__evaluate_exit");
// A binding no JSONata variable name can spell (it has a space), so an expression cannot read the run it belongs to.
const RUN = "renderd run";
const LIMIT_CODES = new Set(["D1011", "D2014", "D2015", "RENDERD_LIMIT"]);

/** Run is one evaluation: the render's budget, and the whole data that `$$` names. */
interface Run {
  evaluation: Evaluation;
  root: unknown;
  rooted: boolean;
}

function limitError(message: string): JsonataError {
  return { code: "RENDERD_LIMIT", message };
}

// jsonata binds `$$` to the input, which is the row here; the first step rebinds it, in the run's own frame, to the
// whole data, so that inside a table `$` is the row and `$$` the root.
async function onEntry(_expr: unknown, _input: unknown, environment: { lookup(name: string): unknown; bind(name: string, value: unknown): void }): Promise<void> {
  const run = environment.lookup(RUN) as Run;
  if (!run.rooted) {
    run.rooted = true;
    environment.bind("$", run.root);
  }
  const pause = run.evaluation.step();
  if (pause) await pause;
}

async function onExit(expr: { type: string; value?: unknown }, _input: unknown, environment: { lookup(name: string): unknown }, result: unknown): Promise<void> {
  if (typeof result === "string") {
    if (result.length > EXPRESSION_LIMITS.chars) throw limitError(`a value of more than ${EXPRESSION_LIMITS.chars} characters`);
    // Only new strings count toward the total: a path that reads the data makes none.
    if (expr.type === "function" || (expr.type === "binary" && expr.value === "&")) (environment.lookup(RUN) as Run).evaluation.made(result.length);
  } else if (Array.isArray(result) && result.length > EXPRESSION_LIMITS.items) {
    throw limitError(`a list of more than ${EXPRESSION_LIMITS.items} items`);
  }
}

// jsonata's $pad builds its padding in one call, however wide: 1e8 took 13 s. This one refuses what no step may hold.
function pad(text: string | undefined, width: number, char?: string): string | undefined {
  if (text === undefined) return undefined;
  const filler = char === undefined || char === "" ? " " : char;
  const wanted = Math.trunc(width);
  if (Math.abs(wanted) > EXPRESSION_LIMITS.chars) throw limitError(`$pad to more than ${EXPRESSION_LIMITS.chars} characters`);
  const missing = Math.abs(wanted) - Array.from(text).length;
  if (missing <= 0) return text;
  const padding = Array.from(filler.repeat(Math.ceil(missing / Array.from(filler).length))).slice(0, missing).join("");
  return wanted > 0 ? text + padding : padding + text;
}

// Parsed expressions by their text: drafts are parsed on every save and render, published versions once.
const parsed = new Map<string, Expression | JsonataError>();
const MAX_PARSED = 1000;

/** parseExpression answers the parsed expression, or a problem naming the position of the syntax error. */
export function parseExpression(text: string): { ok: Expression } | { problem: string } {
  let entry = parsed.get(text);
  if (!entry) {
    try {
      const expression = jsonata(text, { stack: EXPRESSION_LIMITS.depth, sequence: EXPRESSION_LIMITS.items } as jsonata.JsonataOptions);
      expression.assign(ENTRY as unknown as string, onEntry);
      expression.assign(EXIT as unknown as string, onExit);
      expression.registerFunction("pad", pad, "<s-ns?:s>");
      entry = expression;
    } catch (error) {
      entry = error as JsonataError;
    }
    if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, entry);
  }
  return "evaluate" in entry ? { ok: entry as Expression } : { problem: syntaxProblem(entry as JsonataError) };
}

function syntaxProblem(error: JsonataError): string {
  const where = error.position === undefined ? "" : ` (at character ${error.position})`;
  return `is not a valid JSONata expression: ${error.message ?? String(error)}${where}`;
}

/** Evaluation is one render's evaluation of its computed values: the whole data and the time budget they share. */
export class Evaluation {
  private spent = 0;
  private sliceStart = 0;
  private madeChars = 0;

  /** `timeMs` is the render's evaluation time (EXPRESSION_LIMITS.timeMs unless a test wants less). */
  constructor(
    private readonly root: unknown,
    private readonly timeMs: number = EXPRESSION_LIMITS.timeMs,
  ) {}

  /** evaluate answers the expression's value with `current` as `$` (undefined when it has none); a limit exceeded is
   * LIMIT_EXCEEDED and any other error DATA_INVALID, each naming the expression by its pointer `at`. */
  async evaluate(expression: Expression, current: unknown, at: string): Promise<unknown> {
    this.sliceStart = performance.now();
    const run: Run = { evaluation: this, root: this.root, rooted: false };
    try {
      return plain(await expression.evaluate(current, { [RUN]: run }));
    } catch (error) {
      throw evaluationError(error as JsonataError, at);
    } finally {
      this.spent += performance.now() - this.sliceStart;
    }
  }

  /** step is called before every evaluation step: it throws once the time is spent, and answers a pause every slice. */
  step(): Promise<void> | undefined {
    const now = performance.now();
    const running = now - this.sliceStart;
    if (this.spent + running > this.timeMs) throw limitError(`more than ${this.timeMs} ms of evaluation`);
    if (running < EXPRESSION_SLICE_MS) return undefined;
    this.spent += running;
    return new Promise((resume) =>
      setImmediate(() => {
        this.sliceStart = performance.now();
        resume();
      }),
    );
  }

  /** made counts the characters of a new string toward the render's total. */
  made(chars: number): void {
    this.madeChars += chars;
    if (this.madeChars > EXPRESSION_LIMITS.totalChars) throw limitError(`more than ${EXPRESSION_LIMITS.totalChars} characters of new text`);
  }
}

// A result JSONata built (a sequence, a function) becomes plain JSON-like data: functions are no value.
function plain(value: unknown): unknown {
  if (typeof value === "function") return undefined;
  if (value !== null && typeof value === "object" && ("_jsonata_lambda" in value || "_jsonata_function" in value)) return undefined;
  return value;
}

function evaluationError(error: JsonataError, at: string): ApiError {
  const code = error.code ?? "";
  const where = error.position === undefined || code === "RENDERD_LIMIT" ? "" : ` (at character ${error.position})`;
  const message = `${error.message ?? String(error)}${where}`;
  if (LIMIT_CODES.has(code)) {
    return new ApiError("LIMIT_EXCEEDED", `A computed value went past a limit: ${message}. Simplify the expression or the data.`, {
      details: [{ path: at, message: `stopped at ${message}` }],
    });
  }
  // A syntax error was found when the template was saved; what is left goes wrong on this data (a string where a
  // number was meant, a missing function argument): the request's fault, not the server's.
  return new ApiError("DATA_INVALID", `A computed value could not be evaluated on this data: ${message}.`, { details: [{ path: at, message: `failed: ${message}` }] });
}
