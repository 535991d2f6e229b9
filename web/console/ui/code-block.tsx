// Code to copy: shown as text, with a button that copies it whole. Where the clipboard API is
// not offered (a page on plain http away from localhost), the code is selected instead.
import { useRef, useState } from "preact/hooks";
import { CheckIcon, CopyIcon } from "./icons.tsx";

/** How long "Copied" shows before the button reads "Copy" again. */
const copiedNoticeMs = 2_000;

type CopyState = "idle" | "copied" | "selected";

export function CodeBlock({ code, label }: { code: string; label: string }) {
  const [state, setState] = useState<CopyState>("idle");
  const codeElement = useRef<HTMLElement>(null);

  const selectCode = () => {
    const range = document.createRange();
    range.selectNodeContents(codeElement.current!);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    setState("selected");
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      setState("copied");
      setTimeout(() => setState("idle"), copiedNoticeMs);
    } catch {
      selectCode();
    }
  };

  return (
    <div class="code-block">
      <pre aria-label={label} tabIndex={0}><code ref={codeElement}>{code}</code></pre>
      <button type="button" class="button button-ghost button-small code-copy" onClick={copy} aria-label={`Copy ${label}`}>
        {state === "copied" ? <CheckIcon /> : <CopyIcon />}
        <span aria-live="polite">{state === "copied" ? "Copied" : state === "selected" ? "Press Ctrl+C" : "Copy"}</span>
      </button>
    </div>
  );
}
