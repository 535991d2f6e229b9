// Pairing a number: connect opens its session, then the pairing code is shown as the gateway
// draws it (PNG) and read again until the phone has scanned it. Codes rotate; each new one is
// drawn anew.
import { useEffect, useState } from "preact/hooks";
import { connectInstance, qrImage, readQr } from "../../api/gateway-api.ts";
import type { GatewayInstance, QrState } from "../../api/gateway-types.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { LoadingState } from "../../ui/states.tsx";

/** How often the dialog asks whether the phone has scanned the code (or the code rotated). */
export const qrPollIntervalMs = 1_000;

type Pairing = { step: "connecting" } | { step: "waiting"; image: string | null } | { step: "paired" } | { step: "failed"; error: unknown };

function usePairing(apiKey: string, instance: GatewayInstance, onPaired: () => void): Pairing {
  const [pairing, setPairing] = useState<Pairing>({ step: "connecting" });
  useEffect(() => {
    let open = true;
    let shownCode: string | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = async (qr: QrState) => {
      if (qr.status === "paired") {
        setPairing({ step: "paired" });
        onPaired();
        return;
      }
      if (qr.status === "code" && qr.code !== shownCode) {
        const image = await qrImage(apiKey, instance.id);
        if (!open) return;
        shownCode = qr.code;
        setPairing({ step: "waiting", image });
      } else if (qr.status === "pending" && shownCode === null) {
        setPairing({ step: "waiting", image: null });
      }
      timer = setTimeout(poll, qrPollIntervalMs);
    };
    const poll = () =>
      readQr(apiKey, instance.id).then(
        (qr) => open && show(qr).catch((error: unknown) => open && setPairing({ step: "failed", error })),
        (error: unknown) => open && setPairing({ step: "failed", error }),
      );
    connectInstance(apiKey, instance.id).then(
      ({ qr }) => open && show(qr).catch((error: unknown) => open && setPairing({ step: "failed", error })),
      (error: unknown) => open && setPairing({ step: "failed", error }),
    );
    return () => {
      open = false;
      clearTimeout(timer);
    };
  }, [apiKey, instance.id]);
  return pairing;
}

function PairingBody({ pairing, instance }: { pairing: Pairing; instance: GatewayInstance }) {
  if (pairing.step === "connecting") return <LoadingState label="Opening the number's session…" />;
  if (pairing.step === "failed") return <FormError error={pairing.error} />;
  if (pairing.step === "paired") return <Alert tone="success">{instance.phone} is paired: it can send and receive now.</Alert>;
  return (
    <div class="qr-pairing">
      {pairing.image ? (
        <img class="qr-image" src={pairing.image} width={256} height={256} alt={`Pairing code for ${instance.phone}`} />
      ) : (
        <LoadingState label="Waiting for the network's pairing code…" />
      )}
      <ol class="qr-steps">
        <li>Open WhatsApp on the phone of {instance.phone}.</li>
        <li>Go to Settings, Linked devices, Link a device.</li>
        <li>Point the phone at this code. It changes every little while; this picture follows it.</li>
      </ol>
      <p class="muted-note" role="status">Waiting for the phone to scan the code…</p>
    </div>
  );
}

export function PairDialog({ apiKey, instance, onClose, onPaired }: { apiKey: string; instance: GatewayInstance; onClose(): void; onPaired(): void }) {
  const pairing = usePairing(apiKey, instance, onPaired);
  return (
    <Dialog open title={`Pair ${instance.phone}`} onClose={onClose} footer={<Button variant={pairing.step === "paired" ? "primary" : "secondary"} onClick={onClose}>{pairing.step === "paired" ? "Done" : "Close"}</Button>}>
      <PairingBody pairing={pairing} instance={instance} />
    </Dialog>
  );
}
