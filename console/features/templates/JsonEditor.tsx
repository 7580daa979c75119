/** JsonEditor: CodeMirror 6 over JSON text, with a syntax error marked at its place and the API's problems marked where
 * their pointers point. The text follows `value` when it changes from outside (an edit in the Design tab, an undo). */
import { useEffect, useRef } from "react";
import { basicSetup } from "codemirror";
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { syntaxTree, ensureSyntaxTree } from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { EditorView } from "@codemirror/view";
import { pointerRange } from "./pointer";

/** Problem is one API error detail: where (a JSON pointer into the text) and what. */
export interface Problem {
  path: string;
  message: string;
}

interface Props {
  value: string;
  onChange: (text: string) => void;
  problems: Problem[];
  label: string;
}

const syntaxErrors = jsonParseLinter();

/** JsonEditor edits JSON text and marks its syntax error and the given problems in it. */
export function JsonEditor({ value, onChange, problems, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  // Set while the text is replaced from outside, so that the replacement is not reported back as an edit.
  const replacing = useRef(false);

  useEffect(() => {
    const editor = new EditorView({
      doc: value,
      parent: host.current!,
      extensions: [
        basicSetup,
        json(),
        lintGutter(),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((u) => u.docChanged && !replacing.current && changed.current(u.state.doc.toString())),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
    // The editor is made once; later values are put into it by the effect below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    replacing.current = true;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    replacing.current = false;
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const syntax = syntaxErrors(editor);
    const text = editor.state.doc.toString();
    const tree = ensureSyntaxTree(editor.state, editor.state.doc.length, 1000) ?? syntaxTree(editor.state);
    // A problem's pointer is found only in text that is JSON; while it is not, the syntax error is what matters.
    const found: Diagnostic[] = syntax.length
      ? []
      : problems.map((p) => ({ ...pointerRange(tree, text, p.path), severity: "error", message: `${p.path || "/"}: ${p.message}` }));
    editor.dispatch(setDiagnostics(editor.state, [...syntax, ...found]));
  }, [problems, value]);

  return <div className="json-editor" ref={host} />;
}
