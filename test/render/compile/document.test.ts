import { describe, expect, test } from "bun:test";
import type { ErrorDetail } from "../../../src/errors";
import { renderDocumentHtml } from "../../../src/render/compile/compile";
import type { RenderedDocument } from "../../../src/render/compile/document";
import type { DocumentNode } from "../../../src/render/compile/model";
import { options } from "./helpers";

async function html(node: DocumentNode): Promise<string> {
  const result = await renderDocumentHtml(node, options);
  if ("problems" in result) expect(result.problems).toEqual([]);
  const document = (result as { ok: RenderedDocument }).ok.html;
  return document.slice(document.indexOf("<body>") + 6, document.lastIndexOf("</body>"));
}

async function problems(node: DocumentNode): Promise<ErrorDetail[]> {
  const result = await renderDocumentHtml(node, options);
  return "problems" in result ? result.problems : [];
}

describe("renderDocumentHtml", () => {
  test("a full document around the tree", async () => {
    const result = await renderDocumentHtml({ type: "text", text: "x" }, options);
    expect("ok" in result && result.ok.html).toStartWith('<!DOCTYPE html><html><head><meta charset="utf-8">');
  });

  test("container: div by default, with id, class + tw, lang, dir, preset merged under style, allowed attributes", async () => {
    expect(
      await html({
        type: "container",
        id: "main",
        className: "page",
        tw: "p-4 text-sm",
        lang: "ar",
        dir: "rtl",
        preset: { margin: 0, color: "black" },
        style: { color: "navy" },
        attributes: { title: "T", "data-section": "1", "aria-label": "Main", reversed: "" },
        children: [{ type: "text", text: "a" }],
      }),
    ).toBe(
      '<div id="main" class="page p-4 text-sm" lang="ar" dir="rtl" style="margin:0;color:navy" title="T" data-section="1" aria-label="Main" reversed=""><span>a</span></div>',
    );
  });

  test("tags from the allow-list", async () => {
    const node: DocumentNode = {
      type: "container",
      tagName: "table",
      children: [
        {
          type: "container",
          tagName: "tbody",
          children: [{ type: "container", tagName: "tr", children: [{ type: "text", tagName: "td", text: "1", attributes: { colspan: "2" } }] }],
        },
      ],
    };
    expect(await html(node)).toBe('<table><tbody><tr><td colspan="2">1</td></tr></tbody></table>');
  });

  test("void tags: br and hr", async () => {
    expect(await html({ type: "container", tagName: "p", children: [{ type: "text", text: "a" }, { type: "container", tagName: "br" }, { type: "container", tagName: "hr" }] })).toBe(
      "<p><span>a</span><br><hr></p>",
    );
  });

  test("text is escaped", async () => {
    expect(await html({ type: "text", tagName: "h1", text: '<script>alert(1)</script>"' })).toBe("<h1>&lt;script&gt;alert(1)&lt;/script&gt;&quot;</h1>");
  });

  test("attribute values, id, class and lang are escaped", async () => {
    const out = await html({ type: "text", text: "x", id: '"><script>', className: "a\" onclick=\"x", lang: "<", attributes: { title: '"><img src=x onerror=alert(1)>' } });
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<img");
    expect(out).not.toContain('" onclick');
  });

  test.each([
    ["an asset id", "ast_logo", 'src="https://assets.renderd.invalid/ast_logo"'],
    ["a data:image URL", "data:image/png;base64,iVBORw0KGgo=", 'src="data:image/png;base64,iVBORw0KGgo="'],
    ["an SVG data URL", "data:image/svg+xml,%3Csvg%2F%3E", 'src="data:image/svg+xml,%3Csvg%2F%3E"'],
  ])("image from %s", async (_name, src, expected) => {
    expect(await html({ type: "image", src, width: 10, height: 5 })).toBe(`<img ${expected} width="10" height="5" alt="">`);
  });

  const refused: [string, DocumentNode, ErrorDetail[]][] = [
    ["script tag", { type: "text", tagName: "script", text: "alert(1)" }, [{ path: "/tagName", message: 'tag "script" is not allowed' }]],
    ["iframe tag", { type: "container", tagName: "iframe" }, [{ path: "/tagName", message: 'tag "iframe" is not allowed' }]],
    ["style tag", { type: "text", tagName: "style", text: "body{}" }, [{ path: "/tagName", message: 'tag "style" is not allowed' }]],
    ["a link", { type: "text", tagName: "a", text: "x", attributes: { href: "javascript:alert(1)" } }, [
      { path: "/tagName", message: 'tag "a" is not allowed' },
      { path: "/attributes/href", message: 'attribute "href" is not allowed' },
    ]],
    ["upper-case tag", { type: "container", tagName: "DIV" }, [{ path: "/tagName", message: 'tag "DIV" is not allowed' }]],
    ["an event handler", { type: "container", attributes: { onclick: "alert(1)" } }, [{ path: "/attributes/onclick", message: 'attribute "onclick" is not allowed' }]],
    ["srcdoc", { type: "container", attributes: { srcdoc: "<script>" } }, [{ path: "/attributes/srcdoc", message: 'attribute "srcdoc" is not allowed' }]],
    ["style as an attribute", { type: "container", attributes: { style: "color:red" } }, [{ path: "/attributes/style", message: 'attribute "style" is not allowed' }]],
    ["a bad data- name", { type: "container", attributes: { "data-x y": "1" } }, [{ path: "/attributes/data-x y", message: 'attribute "data-x y" is not allowed' }]],
    ["an http image", { type: "image", src: "https://evil.test/x.png" }, [{ path: "/src", message: "images must be assets (an asset id or a data:image URL)" }]],
    ["a file image", { type: "image", src: "file:///etc/passwd" }, [{ path: "/src", message: "images must be assets (an asset id or a data:image URL)" }]],
    ["a data:text/html image", { type: "image", src: "data:text/html,<script>" }, [{ path: "/src", message: "images must be assets (an asset id or a data:image URL)" }]],
    ["an image with another tag", { type: "image", src: "ast_1", tagName: "object" }, [{ path: "/tagName", message: "an image is an img" }]],
    ["a br with content", { type: "text", tagName: "br", text: "x" }, [{ path: "/tagName", message: "br cannot have content" }]],
    ["a style url", { type: "container", style: { background: "url(https://evil.test)" } }, [
      { path: "/style/background", message: expect.stringContaining("url()") as unknown as string },
    ]],
    ["a preset escape", { type: "container", preset: { color: "red;}" } }, [
      { path: "/preset/color", message: "must not contain ; { } < > \\ or control characters" },
    ]],
    ["a deep problem", { type: "container", children: [{ type: "container", children: [{ type: "text", text: "x" }, { type: "container", tagName: "form" }] }] }, [
      { path: "/children/0/children/1/tagName", message: 'tag "form" is not allowed' },
    ]],
  ];
  test.each(refused)("refused: %s", async (_name, node, expected) => {
    expect(await problems(node)).toEqual(expected);
  });
});
