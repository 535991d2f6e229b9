// The head of a Mail or Messaging section: its title, the filters it has (`children`), and
// Refresh, which reads it again.
import type { ComponentChildren } from "preact";
import { Button } from "../../ui/button.tsx";
import { RefreshIcon } from "../../ui/icons.tsx";

interface RefreshToolbarProps {
  title: ComponentChildren;
  /** The title's id, for the section it heads to be labelled by. */
  titleId?: string;
  onRefresh(): void;
  children?: ComponentChildren;
}

export function RefreshToolbar({ title, titleId, onRefresh, children }: RefreshToolbarProps) {
  return (
    <div class="gateway-toolbar">
      <h2 id={titleId} class="section-subtitle">{title}</h2>
      {children}
      <Button small onClick={onRefresh}>
        <RefreshIcon /> Refresh
      </Button>
    </div>
  );
}
