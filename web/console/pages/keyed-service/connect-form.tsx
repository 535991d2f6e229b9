// Connecting the tab to a service with keys of its own (the messaging gateway, the mail API):
// the person pastes a key, the service itself says whether it takes it, and a bar says which
// key the tab is connected with (its ends only) and disconnects it. The words are the page's.
import type { ComponentChildren } from "preact";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { KeyIcon, LogOutIcon } from "../../ui/icons.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";

interface KeyConnectFormProps {
  id: string;
  title: string;
  description: string;
  /** The key field's label and name. */
  label: string;
  name: string;
  placeholder: string;
  /** Why nothing was sent when the field is empty. */
  emptyMessage: string;
  /** Asks the service about the key and connects the tab with it; throws the service's refusal. */
  connect(key: string): Promise<void>;
}

export function KeyConnectForm({ id, title, description, label, name, placeholder, emptyMessage, connect }: KeyConnectFormProps) {
  const form = useFormAction(async (fields) => {
    const key = fieldText(fields, name).trim();
    if (!key) throw new Error(emptyMessage);
    await connect(key);
  });
  return (
    <SettingsSection id={id} title={title} description={description}>
      <form class="form settings-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="inline-form">
          <TextField label={label} name={name} type="password" autoComplete="off" spellcheck={false} required placeholder={placeholder} />
          <Button type="submit" variant="primary" busy={form.busy}>
            <KeyIcon /> Connect
          </Button>
        </div>
      </form>
    </SettingsSection>
  );
}

/** The key's first eight and last four characters: enough to tell keys apart, too little to use. */
const keyEnds = (key: string) => `${key.slice(0, 8)}…${key.slice(-4)}`;

/** The key as the bar shows it. */
export const KeyEnds = ({ apiKey }: { apiKey: string }) => <code class="inline-key">{keyEnds(apiKey)}</code>;

/** `children` says which key (its `KeyEnds`) and what it opens. */
export function KeyConnectedBar({ onDisconnect, children }: { onDisconnect(): void; children: ComponentChildren }) {
  return (
    <div class="card gateway-connected" role="status">
      <KeyIcon />
      <p>{children}</p>
      <Button small variant="ghost" onClick={onDisconnect}>
        <LogOutIcon /> Disconnect
      </Button>
    </div>
  );
}
