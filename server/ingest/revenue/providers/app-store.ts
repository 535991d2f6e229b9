// App Store Server Notifications V2 (`POST {signedPayload}`): the notification, its
// transaction info and its renewal info are each an App Store JWS (app-store-jws.ts), checked
// against the trusted roots (app-store-roots.ts) before anything is read from them. The
// notification's app (`bundleId`) must be the integration's `config.bundle_id`; one signed for
// another app is refused like a bad signature (401), so the mismatch shows up as an ingestion
// warning instead of being acknowledged and lost. Sandbox notifications are acknowledged and
// ignored unless `config.accept_sandbox` is true. Idempotent by `notificationUUID`.
import type { X509Certificate } from "node:crypto";
import { WebhookAuthError, WebhookPayloadError, type RevenueProviderModule, type WebhookOutcome } from "../provider.ts";
import { DraftList, isPlainObject, numberAt, objectAt, textAt } from "./drafts.ts";
import { verifyAppStoreJws } from "./app-store-jws.ts";
import { mapAppStoreNotification, mappedAppStoreTypes } from "./app-store-mapping.ts";

/** The app a notification is about, wherever its kind of notification carries it. */
function notificationBundleId(payload: Record<string, unknown>): string | null {
  for (const key of ["data", "summary", "externalPurchaseToken", "appData"]) {
    const bundleId = textAt(objectAt(payload, key), "bundleId");
    if (bundleId !== null) return bundleId;
  }
  return null;
}

/** The App Store module, trusting `trustedRoots` (loadAppStoreRoots(APP_STORE_ROOT_CERTIFICATES)). */
export function createAppStoreModule(trustedRoots: readonly X509Certificate[]): RevenueProviderModule {
  return {
    provider: "app_store",
    async handle(integration, request): Promise<WebhookOutcome> {
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(request.body));
      } catch {
        body = null;
      }
      const signedPayload = isPlainObject(body) ? body.signedPayload : undefined;
      if (typeof signedPayload !== "string") throw new WebhookAuthError("missing_signature", "the body is not an App Store notification {signedPayload}");
      const payload = verifyAppStoreJws(signedPayload, trustedRoots, request.receivedAt, "signedPayload");

      const expectedBundleId = textAt(integration.config, "bundle_id");
      const bundleId = notificationBundleId(payload);
      if (expectedBundleId === null) throw new WebhookAuthError("bad_signature", "the integration has no bundle_id to match notifications with");
      if (bundleId !== expectedBundleId) throw new WebhookAuthError("bad_signature", "the notification is for another app (its bundleId is not the integration's bundle_id)");

      const notificationId = textAt(payload, "notificationUUID");
      const type = textAt(payload, "notificationType");
      const signedDate = numberAt(payload, "signedDate");
      if (notificationId === null || type === null || signedDate === null) {
        throw new WebhookPayloadError("the notification lacks its notificationUUID, notificationType or signedDate");
      }
      const subtype = textAt(payload, "subtype");
      const notificationType = subtype === null ? type : `${type}/${subtype}`;
      const data = objectAt(payload, "data");
      const sandboxAccepted = integration.config.accept_sandbox === true;
      if (!mappedAppStoreTypes.has(type) || (textAt(data, "environment") === "Sandbox" && !sandboxAccepted)) {
        return { kind: "ignored", notificationId, notificationType };
      }
      if (data?.signedTransactionInfo === undefined) throw new WebhookPayloadError(`a ${type} notification without data.signedTransactionInfo`);
      const transaction = verifyAppStoreJws(data?.signedTransactionInfo, trustedRoots, signedDate, "signedTransactionInfo");
      if (textAt(transaction, "bundleId") !== expectedBundleId) throw new WebhookAuthError("bad_signature", "the transaction is for another app");
      const renewal = data?.signedRenewalInfo === undefined ? null : verifyAppStoreJws(data.signedRenewalInfo, trustedRoots, signedDate, "signedRenewalInfo");
      const drafts = new DraftList("app_store", notificationId, signedDate);
      mapAppStoreNotification({ type, subtype, transaction, renewal }, drafts);
      return { kind: "events", notificationId, notificationType, events: drafts.events };
    },
  };
}
