// One part of a settings page: a card with a heading, what it is for, and, when the person's
// role may not change it, why (the controls below are disabled and point to this sentence).
import type { ComponentChildren } from "preact";
import { LockIcon } from "../../ui/icons.tsx";

interface SettingsSectionProps {
  id: string;
  title: string;
  description?: ComponentChildren;
  /** Why the person's role may not use the section's controls; null when it may. */
  blockedReason?: string | null;
  /** Beside the heading, e.g. a "Create" button. */
  action?: ComponentChildren;
  danger?: boolean;
  children: ComponentChildren;
}

/** The id of a section's role note, for the disabled controls' aria-describedby. */
export const roleNoteId = (sectionId: string) => `${sectionId}-role-note`;

export function SettingsSection({ id, title, description, blockedReason, action, danger, children }: SettingsSectionProps) {
  return (
    <section class={danger ? "card settings-section settings-danger" : "card settings-section"} aria-labelledby={`${id}-title`}>
      <div class="settings-section-head">
        <div class="settings-section-text">
          <h2 id={`${id}-title`}>{title}</h2>
          {description && <p class="settings-description">{description}</p>}
        </div>
        {action}
      </div>
      {blockedReason && (
        <p class="role-note" id={roleNoteId(id)}>
          <LockIcon />
          {blockedReason}
        </p>
      )}
      {children}
    </section>
  );
}

/** A fact shown as a term and its value. */
export function Fact({ term, wide, children }: { term: string; wide?: boolean; children: ComponentChildren }) {
  return (
    <div class={wide ? "fact fact-wide" : "fact"}>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
