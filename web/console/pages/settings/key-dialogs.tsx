// The dialogs that change a public key: rotating it (replacing it, with the old one revoked now
// or kept working until it is revoked: the API's keep_old), revoking it, and editing the web
// origins allowed to send with it.
import { useState } from "preact/hooks";
import { revokeKey, rotateKey, updateKeyOrigins } from "../../api/settings-api.ts";
import type { RotateKeyResponse } from "../../api/settings-types.ts";
import type { KeyDto } from "../../api/types.ts";
import { TextAreaField } from "../../ui/field.tsx";
import { Button } from "../../ui/button.tsx";
import { ConfirmDialog, Dialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { useAction } from "./use-action.ts";

/** What the API allows in one key's allowlist (server/control/services/keys.ts). */
const allowedOriginsMax = 50;

interface KeyDialogProps {
  projectId: string;
  keyRow: KeyDto;
  onClose(): void;
}

export type KeepOld = "revoke-now" | "keep";

export function RotateKeyDialog({ projectId, keyRow, onClose, onRotated }: KeyDialogProps & { onRotated(result: RotateKeyResponse, keepOld: boolean): void }) {
  const [keepOld, setKeepOld] = useState<KeepOld>("revoke-now");
  const rotate = useAction(async () => onRotated(await rotateKey(projectId, keyRow.id, keepOld === "keep"), keepOld === "keep"));
  return (
    <Dialog
      open
      title={`Rotate the ${keyRow.environment} key`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={rotate.busy}>Cancel</Button>
          <Button variant="primary" busy={rotate.busy} onClick={() => void rotate.run()}>Rotate key</Button>
        </>
      }
    >
      <FormError error={rotate.error} />
      <p>A new key replaces this one, with the same allowed origins. Then update the key in your apps and sites.</p>
      <fieldset class="field choice-group">
        <legend class="field-label">The old key</legend>
        <label class="choice">
          <input type="radio" name="keep-old" value="revoke-now" checked={keepOld === "revoke-now"} onChange={() => setKeepOld("revoke-now")} />
          <span>
            <span class="choice-title">Revoke it now</span>
            <span class="choice-hint">Events sent with it are refused from now on. Choose this when the key leaked.</span>
          </span>
        </label>
        <label class="choice">
          <input type="radio" name="keep-old" value="keep" checked={keepOld === "keep"} onChange={() => setKeepOld("keep")} />
          <span>
            <span class="choice-title">Keep the old key working until you revoke it</span>
            <span class="choice-hint">Both keys are accepted while your apps move to the new one; revoke the old key here when none sends it any more.</span>
          </span>
        </label>
      </fieldset>
    </Dialog>
  );
}

export function RevokeKeyDialog({ projectId, keyRow, lastActive, onClose, onRevoked }: KeyDialogProps & { lastActive: boolean; onRevoked(key: KeyDto): void }) {
  const revoke = useAction(async () => onRevoked(await revokeKey(projectId, keyRow.id)));
  return (
    <ConfirmDialog open title={`Revoke this ${keyRow.environment} key?`} confirmLabel="Revoke key" danger busy={revoke.busy} onConfirm={() => void revoke.run()} onClose={onClose}>
      <FormError error={revoke.error} />
      <p>
        Ingest refuses every event sent with <code class="inline-key">{keyRow.key}</code> from now on. This cannot be undone.
      </p>
      {lastActive && (
        <p class="dialog-warning">
          It is the {keyRow.environment} environment's only active key, and a revoked key cannot be rotated: the environment will take no events. To replace the key instead, rotate it.
        </p>
      )}
    </ConfirmDialog>
  );
}

const linesOf = (text: string) => text.split("\n").map((line) => line.trim()).filter(Boolean);

export function KeyOriginsDialog({ projectId, keyRow, onClose, onSaved }: KeyDialogProps & { onSaved(key: KeyDto): void }) {
  const [text, setText] = useState(keyRow.allowed_origins.join("\n"));
  const save = useAction(async () => {
    const origins = linesOf(text);
    if (origins.length > allowedOriginsMax) throw new Error(`list at most ${allowedOriginsMax} origins`);
    onSaved(await updateKeyOrigins(projectId, keyRow.id, origins));
  });
  return (
    <Dialog
      open
      title={`Allowed origins of the ${keyRow.environment} key`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={save.busy}>Cancel</Button>
          <Button variant="primary" busy={save.busy} onClick={() => void save.run()}>Save origins</Button>
        </>
      }
    >
      <FormError error={save.error} />
      <TextAreaField
        monospace
        label="Allowed origins"
        name="origins"
        rows={5}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        placeholder="https://app.example.com"
        hint={`One origin a line, like https://app.example.com (scheme, host and port, no path), at most ${allowedOriginsMax}. Browsers on other origins are refused. Leave it empty to allow any origin. Servers and mobile apps send no origin and are not checked.`}
      />
    </Dialog>
  );
}
