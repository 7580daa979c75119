/** JsonEditor: CodeMirror 6 over the draft's JSON, with the API's problems marked where their pointers point. */
import { useEffect, useRef } from "react";
import { basicSetup } from "codemirror";
import { json } from "@codemirror/lang-json";
import { syntaxTree, ensureSyntaxTree } from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { EditorView } from "@codemirror/view";
import { pointerRange } from "./pointer";

/** Problem is one API error detail: where (a JSON pointer) and what. */
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

/** JsonEditor edits JSON text and marks the given problems in it. */
export function JsonEditor({ value, onChange, problems, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

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
        EditorView.updateListener.of((u) => u.docChanged && changed.current(u.state.doc.toString())),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
    // The editor owns its text once created; a new template remounts it (key) instead.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const text = editor.state.doc.toString();
    const tree = ensureSyntaxTree(editor.state, editor.state.doc.length, 1000) ?? syntaxTree(editor.state);
    const diagnostics: Diagnostic[] = problems.map((p) => ({ ...pointerRange(tree, text, p.path), severity: "error", message: `${p.path || "/"}: ${p.message}` }));
    editor.dispatch(setDiagnostics(editor.state, diagnostics));
  }, [problems]);

  return <div className="json-editor" ref={host} />;
}
