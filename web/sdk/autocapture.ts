// Optional click autocapture: a click on a link, a button or another element people click is
// captured as `$autocapture` with the element's tag, id, classes, link and visible text.
// Nothing typed is ever read (no value of an input, select or text area), and text under the
// recording's text-masking selector is left out.

/** Elements whose click is captured; a click inside one is reported as a click on it. */
const clickable = "a,button,input[type=button],input[type=submit],input[type=reset],input[type=checkbox],input[type=radio],select,label,summary,[role=button],[role=link],[role=tab],[role=menuitem],[onclick]";
/** Text is cut to this many characters. */
export const elementTextLengthMax = 255;

/** The element's text without what is under the masking selector or in an editable element (a masked child leaves its parent's text). */
function shownText(element: Element, maskTextSelector: string | undefined): string {
  const hidden = maskTextSelector ? `${maskTextSelector},[contenteditable]:not([contenteditable="false"]),textarea` : '[contenteditable]:not([contenteditable="false"]),textarea';
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const parts: string[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement?.closest(hidden)) parts.push(node.textContent ?? "");
  }
  return parts.join(" ");
}

export function startClickAutocapture(capture: (properties: Record<string, unknown>) => void, maskTextSelector: string | undefined): () => void {
  const onClick = (event: MouseEvent) => {
    const target = event.target instanceof Element ? event.target.closest(clickable) : null;
    if (!target || target.closest("[data-svca-no-capture]")) return;
    const masked = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || (maskTextSelector !== undefined && target.closest(maskTextSelector) !== null);
    const text = masked ? "" : shownText(target, maskTextSelector).replace(/\s+/g, " ").trim().slice(0, elementTextLengthMax);
    // Absent rather than null: storage keeps no null properties.
    capture({
      $event_type: "click",
      $el_tag: target.tagName.toLowerCase(),
      $el_classes: [...target.classList],
      ...(target.id ? { $el_id: target.id } : {}),
      ...(target instanceof HTMLAnchorElement && target.href ? { $el_href: target.href } : {}),
      ...(text ? { $el_text: text } : {}),
    });
  };
  document.addEventListener("click", onClick, true);
  return () => document.removeEventListener("click", onClick, true);
}
