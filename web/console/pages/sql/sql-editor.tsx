// The statement's editor: a monospace textarea with line numbers beside it. Ctrl+Enter (⌘+Enter)
// runs it; Tab inserts spaces, and Escape then Tab leaves the editor, so the keyboard is never
// trapped. The line an error names is marked in the numbers and can be selected.
import type { Ref } from "preact";
import { useRef } from "preact/hooks";

/** What Tab inserts. */
export const sqlIndent = "  ";

interface SqlEditorProps {
  id: string;
  value: string;
  onChange(value: string): void;
  onRun(): void;
  /** The last run failed. */
  invalid: boolean;
  /** The 1-based line its error named. */
  errorLine: number | null;
  editorRef: Ref<HTMLTextAreaElement>;
  describedBy: string;
}

/** Types `text` at the cursor as a person would (so undo takes it back), replacing any selection. */
export function insertAtCursor(textarea: HTMLTextAreaElement, text: string): void {
  textarea.focus();
  // execCommand keeps the browser's undo history; where it is gone, setRangeText does the same edit.
  if (!document.execCommand("insertText", false, text)) {
    textarea.setRangeText(text, textarea.selectionStart, textarea.selectionEnd, "end");
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

/** Selects line `line` (1-based) of the textarea. */
export function selectLine(textarea: HTMLTextAreaElement, line: number): void {
  const lines = textarea.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((offset, text) => offset + text.length + 1, 0);
  textarea.focus();
  textarea.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
}

export function SqlEditor({ id, value, onChange, onRun, invalid, errorLine, editorRef, describedBy }: SqlEditorProps) {
  const gutter = useRef<HTMLDivElement>(null);
  const escaped = useRef(false);
  const lineCount = value.split("\n").length;

  const onKeyDown = (event: KeyboardEvent) => {
    const textarea = event.currentTarget as HTMLTextAreaElement;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun();
    } else if (event.key === "Escape") {
      escaped.current = true;
      return;
    } else if (event.key === "Tab" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey && !escaped.current) {
      event.preventDefault();
      insertAtCursor(textarea, sqlIndent);
    }
    escaped.current = false;
  };

  return (
    <div class={invalid ? "sql-editor sql-editor-invalid" : "sql-editor"}>
      <div class="sql-gutter" ref={gutter} aria-hidden="true">
        {Array.from({ length: lineCount }, (_, index) => (
          <span key={index} class={index + 1 === errorLine ? "sql-line-number sql-line-error" : "sql-line-number"}>{index + 1}</span>
        ))}
      </div>
      <textarea
        id={id}
        ref={editorRef}
        class="sql-input"
        value={value}
        spellcheck={false}
        autocomplete="off"
        autocapitalize="off"
        wrap="off"
        aria-invalid={invalid}
        aria-describedby={describedBy}
        onInput={(event) => onChange(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        onScroll={(event) => gutter.current && (gutter.current.scrollTop = event.currentTarget.scrollTop)}
      />
    </div>
  );
}
