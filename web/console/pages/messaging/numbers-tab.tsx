// A project's numbers: register one (E.164 and a label), pair it by QR code, log its device out
// or retire it. Labels and the network's errors are shown as text.
import { useRef, useState } from "preact/hooks";
import { listInstances, logoutInstance, registerInstance, retireInstance } from "../../api/gateway-api.ts";
import type { GatewayInstance } from "../../api/gateway-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PlusIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { StateBadge, Time } from "./messaging-bits.tsx";
import { PairDialog } from "./pair-dialog.tsx";

/** The gateway's own limit on a number's label (server/gateway/instances-service.ts). */
const labelLengthMax = 200;

function RegisterForm({ apiKey, onRegistered }: { apiKey: string; onRegistered(instance: GatewayInstance): void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormAction(async (fields) => {
    const instance = await registerInstance(apiKey, fieldText(fields, "phone").trim(), fieldText(fields, "label").trim() || null);
    formRef.current?.reset();
    onRegistered(instance);
  });
  return (
    <form ref={formRef} class="form settings-form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      <div class="inline-form">
        <TextField label="Phone number (E.164)" name="phone" required placeholder="+4915112345678" autoComplete="off" />
        <TextField label="Label" name="label" maxLength={labelLengthMax} placeholder="Support line" />
        <Button type="submit" variant="primary" busy={form.busy}>
          <PlusIcon /> Register a number
        </Button>
      </div>
    </form>
  );
}

type NumberAction = { kind: "pair" | "retire"; instance: GatewayInstance };

function RetireDialog({ apiKey, instance, onClose, onRetired }: { apiKey: string; instance: GatewayInstance; onClose(): void; onRetired(instance: GatewayInstance): void }) {
  const retire = useAction(async () => onRetired(await retireInstance(apiKey, instance.id)));
  return (
    <ConfirmDialog open title="Retire this number?" confirmLabel="Retire number" danger busy={retire.busy} onConfirm={() => void retire.run()} onClose={onClose}>
      <FormError error={retire.error} />
      <p>
        <strong>{instance.phone}</strong> leaves the pool and its device is unlinked; its messages and deliveries are kept. To use the number again, register it anew and pair it.
      </p>
    </ConfirmDialog>
  );
}

function LogoutButton({ apiKey, instance, onDone }: { apiKey: string; instance: GatewayInstance; onDone(instance: GatewayInstance, error: unknown): void }) {
  const [busy, setBusy] = useState(false);
  const logOut = async () => {
    setBusy(true);
    try {
      onDone(await logoutInstance(apiKey, instance.id), null);
    } catch (error) {
      onDone(instance, error);
    } finally {
      setBusy(false);
    }
  };
  return <Button small variant="ghost" busy={busy} aria-label={`Log out ${instance.phone}`} onClick={logOut}>Log out</Button>;
}

export function NumbersTab({ apiKey }: { apiKey: string }) {
  const numbers = usePagedList((cursor) => listInstances(apiKey, cursor), [apiKey]);
  const [action, setAction] = useState<NumberAction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const replace = (changed: GatewayInstance) => numbers.update((items) => items.map((item) => (item.id === changed.id ? changed : item)));
  const say = (text: string | null, error: unknown = null) => {
    setNotice(text);
    setActionError(error);
  };
  const { list } = numbers;
  return (
    <>
      <SettingsSection id="register" title="Register a number" description="A number joins the project's pool once it is paired: register it in international format (+ and the country code), then Pair and scan the code with its phone.">
        <RegisterForm
          apiKey={apiKey}
          onRegistered={(instance) => {
            numbers.update((items) => [instance, ...items]);
            say(`${instance.phone} is registered. Pair it to put it in service.`);
          }}
        />
      </SettingsSection>
      <section class="card table-card" aria-labelledby="numbers-title">
        <RefreshToolbar title="Numbers" titleId="numbers-title" onRefresh={numbers.reload} />
        {notice && <Alert tone="success">{notice}</Alert>}
        <FormError error={actionError} />
        {list.status === "loading" && <LoadingState label="Loading the numbers…" />}
        {list.status === "failed" && <ErrorState title="The numbers could not be loaded" error={list.error} onRetry={numbers.reload} />}
        {list.status === "ready" && (
          <DataTable
            caption="The project's numbers"
            rows={list.items}
            rowKey={(instance) => instance.id}
            empty={<EmptyState icon={<PlusIcon size={20} />} title="No numbers yet">Register the project's first number above.</EmptyState>}
            columns={[
              { label: "Phone", cell: (instance) => <span class="text-strong nowrap">{instance.phone}</span> },
              { label: "Label", cell: (instance) => instance.label ?? "—" },
              { label: "State", cell: (instance) => <StateBadge state={instance.state} /> },
              { label: "Connection", cell: (instance) => <StateBadge state={instance.connection} /> },
              { label: "Last error", cell: (instance) => (instance.lastError ? <span class="gateway-error-text">{instance.lastError}</span> : "—") },
              { label: "Paired", cell: (instance) => <Time at={instance.pairedAt} empty="Not yet" /> },
              {
                label: "Actions",
                actions: true,
                cell: (instance) =>
                  instance.state !== "retired" && (
                    <span class="row-actions">
                      {instance.connection !== "open" && (
                        <Button small variant="primary" aria-label={`Pair ${instance.phone}`} onClick={() => { say(null); setAction({ kind: "pair", instance }); }}>Pair</Button>
                      )}
                      {instance.state === "paired" && (
                        <LogoutButton
                          apiKey={apiKey}
                          instance={instance}
                          onDone={(changed, error) => {
                            replace(changed);
                            say(error === null ? `${changed.phone} is logged out: pair it again to use it.` : null, error);
                          }}
                        />
                      )}
                      <Button small variant="ghost" aria-label={`Retire ${instance.phone}`} onClick={() => { say(null); setAction({ kind: "retire", instance }); }}>Retire</Button>
                    </span>
                  ),
              },
            ]}
          />
        )}
        <LoadMore controls={numbers} />
      </section>
      {action?.kind === "pair" && <PairDialog apiKey={apiKey} instance={action.instance} onClose={() => { setAction(null); numbers.reload(); }} onPaired={numbers.reload} />}
      {action?.kind === "retire" && (
        <RetireDialog
          apiKey={apiKey}
          instance={action.instance}
          onClose={() => setAction(null)}
          onRetired={(changed) => {
            replace(changed);
            say(`${changed.phone} is retired.`);
            setAction(null);
          }}
        />
      )}
    </>
  );
}
