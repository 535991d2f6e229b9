// Tabs as WAI-ARIA describes them: arrow keys move between tabs, Tab goes into the panel.
import type { ComponentChildren } from "preact";
import { useId, useRef } from "preact/hooks";

export interface Tab {
  id: string;
  label: string;
}

interface TabsProps {
  label: string;
  tabs: readonly Tab[];
  selected: string;
  onSelect(id: string): void;
  children: ComponentChildren;
}

export function Tabs({ label, tabs, selected, onSelect, children }: TabsProps) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);

  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.findIndex((tab) => tab.id === selected);
    const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = tabs[(target + tabs.length) % tabs.length]!;
    onSelect(next.id);
    list.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(`${base}-${next.id}`)}`)?.focus();
  };

  return (
    <div class="tabs">
      <div class="tab-list" role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`${base}-${tab.id}`}
            class="tab"
            aria-selected={tab.id === selected}
            aria-controls={`${base}-panel`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div class="tab-panel" role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-${selected}`}>
        {children}
      </div>
    </div>
  );
}
