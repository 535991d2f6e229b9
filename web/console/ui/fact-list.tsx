// A definition list of facts about one thing (an event, a recording, a catalog entry): each a
// term and its value, laid out by the `fact-list` styles.
import type { ComponentChildren } from "preact";

export type Fact = [term: string, value: ComponentChildren];

export function FactList({ facts, class: extraClass }: { facts: Fact[]; class?: string }) {
  return (
    <dl class={extraClass ? `fact-list ${extraClass}` : "fact-list"}>
      {facts.map(([term, value]) => (
        <div key={term} class="fact">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
