import { describe, expect, test } from "bun:test";
import { cssDeclarations, cssPropertyName, styleProblem } from "../../../src/render/compile/style";

describe("cssPropertyName", () => {
  test.each([
    ["backgroundColor", "background-color"],
    ["background-color", "background-color"],
    ["color", "color"],
    ["WebkitPrintColorAdjust", "-webkit-print-color-adjust"],
    ["msTransform", "-ms-transform"],
    ["--brand-color", "--brand-color"],
  ])("%s → %s", (key, name) => {
    expect(cssPropertyName(key)).toBe(name);
  });
});

describe("cssDeclarations", () => {
  test.each([
    ["px for lengths", { width: 100, marginTop: 4.5 }, "width:100px;margin-top:4.5px"],
    ["0 stays unitless", { margin: 0 }, "margin:0"],
    ["unitless properties", { lineHeight: 1.4, opacity: 0.5, zIndex: 3, fontWeight: 700, flex: 1, flexGrow: 2, order: 1 }, "line-height:1.4;opacity:0.5;z-index:3;font-weight:700;flex:1;flex-grow:2;order:1"],
    ["custom properties are unitless", { "--gap": 4 }, "--gap:4"],
    ["strings as they are", { border: "1px solid #ccc", width: "50%" }, "border:1px solid #ccc;width:50%"],
    ["refused values are dropped", { color: "red", background: "url(x)", top: "1px;position:fixed" }, "color:red"],
  ])("%s", (_name, style, css) => {
    expect(cssDeclarations(style)).toBe(css);
  });

  test("later styles win, in the first one's order", () => {
    expect(cssDeclarations({ color: "red", padding: 1 }, undefined, { color: "blue" })).toBe("color:blue;padding:1px");
  });
});

describe("styleProblem", () => {
  test.each([
    ["color", "red", undefined],
    ["fontFamily", '"Noto Sans", sans-serif', undefined],
    ["width", "calc(100% - 2rem)", undefined],
    ["color", "var(--brand)", undefined],
    ["backgroundImage", "linear-gradient(red, blue)", undefined],
    ["background", "URL(https://x)", "must not load resources or run expressions (url(), image-set(), expression()…)"],
    ["background", "-webkit-image-set('a.png' 1x)", "must not load resources or run expressions (url(), image-set(), expression()…)"],
    ["width", "expression(alert(1))", "must not load resources or run expressions (url(), image-set(), expression()…)"],
    ["color", "red}</style><script>", "must not contain ; { } < > \\ or control characters"],
    ["color", "\\75 rl(x)", "must not contain ; { } < > \\ or control characters"],
    ["color", "red\nx", "must not contain ; { } < > \\ or control characters"],
    ["color:red;x", "1", '"color:red;x" is not a CSS property name'],
  ])("%s: %j", (key, value, problem) => {
    expect(styleProblem(key, value)).toBe(problem);
  });
});
