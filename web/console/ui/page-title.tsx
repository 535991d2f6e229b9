// A page's heading and the document title. The heading takes focus when the page opens, so a
// screen reader announces the new page after a navigation that did not reload.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

export const productName = "svc-analytics";

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · ${productName}`;
  }, [title]);
}

export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useDocumentTitle(title);
  useEffect(() => heading.current?.focus(), []);
  return (
    <header class="page-title">
      <h1 ref={heading} tabIndex={-1}>{title}</h1>
      {children && <p class="page-lede">{children}</p>}
    </header>
  );
}
