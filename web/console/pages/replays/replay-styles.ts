// A recording's styles under the console's Content-Security-Policy. The player's iframe is
// about:blank, so it inherits `style-src 'self'`: the CSP refuses every inline <style> and
// `style` attribute the rebuilt page has (Chrome logs each refusal), and the page would show
// unstyled. CSSOM is not refused, so the same CSS is applied through it: each recorded <style>'s
// text as a constructed stylesheet adopted by the document, each `style` attribute through
// `element.style.cssText`. Mutations that set a `style` attribute later are not re-applied.
import type { Replayer } from "@rrweb/replay";

/** What the plugin needs of rrweb's ReplayPlugin (the type is not exported by @rrweb/replay). */
interface BuildPlugin {
  onBuild(node: unknown): void;
}

/**
 * rrweb's own rules for the rebuilt page (blocked elements as placeholders, no noscript, paused
 * animations), as its `rules()` and `pauseAnimation` write them.
 */
const playerStyleRules = [
  ".rr-block { background: currentColor }",
  "noscript { display: none !important; }",
  "html.rrweb-paused *, html.rrweb-paused *:before, html.rrweb-paused *:after { animation-play-state: paused !important; }",
];

const elementNode = 1;

export interface RecordedStyles {
  plugin: BuildPlugin;
  /** Takes over rrweb's own rules, which it would otherwise put in a <style> element the CSP refuses. */
  adopt(player: Replayer): void;
}

export function recordedStyles(): RecordedStyles {
  /** The <style> element each adopted sheet came from: a sheet whose element left the page is dropped. */
  const owners = new WeakMap<CSSStyleSheet, Element>();
  const constructSheet = (doc: Document, css: string): CSSStyleSheet | null => {
    const view = doc.defaultView;
    if (!view) return null;
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(css);
    return sheet;
  };
  return {
    plugin: {
      onBuild(node) {
        const element = node as Element;
        // A node of the iframe's realm: `instanceof Element` would be false.
        if (element.nodeType !== elementNode || typeof element.getAttribute !== "function") return;
        const inline = element.getAttribute("style");
        if (inline) (element as HTMLElement).style.cssText = inline;
        if (element.tagName.toLowerCase() !== "style") return;
        const doc = element.ownerDocument;
        const sheet = constructSheet(doc, element.textContent ?? "");
        if (!sheet) return;
        owners.set(sheet, element);
        doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
      },
    },
    adopt(player) {
      // Called by rrweb after each full snapshot is built: its rules first, then the sheets of the <style> elements still on the page.
      (player as unknown as { insertStyleRules(documentElement: HTMLElement): void }).insertStyleRules = (documentElement) => {
        const doc = documentElement.ownerDocument;
        const rules = constructSheet(doc, playerStyleRules.join("\n"));
        if (!rules) return;
        doc.adoptedStyleSheets = [rules, ...doc.adoptedStyleSheets.filter((sheet) => owners.get(sheet)?.isConnected)];
      };
    },
  };
}
