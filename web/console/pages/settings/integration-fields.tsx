// The form fields of a revenue integration that depend on its provider: the secret (what the
// provider calls it) and the non-secret config (docs/revenue.md, "Config per provider"), and
// how a submitted form becomes the config the API takes.
import type { IntegrationDto, IntegrationProvider } from "../../api/integrations.ts";
import { fieldText } from "../../hooks/use-form-action.ts";
import { TextAreaField, TextField } from "../../ui/field.tsx";

export const providerLabels: Record<IntegrationProvider, string> = {
  stripe: "Stripe",
  revenuecat: "RevenueCat",
  app_store: "App Store",
  play_store: "Google Play",
};

/** What the provider's secret is, for providers that have one. */
export const secretLabels: Partial<Record<IntegrationProvider, { label: string; hint: string; placeholder: string }>> = {
  stripe: { label: "Signing secret", hint: "The endpoint's signing secret from Stripe's webhook settings (whsec_…).", placeholder: "whsec_…" },
  revenuecat: {
    label: "Authorization header value",
    hint: "The value you set in RevenueCat's webhook settings as the Authorization header; RevenueCat sends it with every notification.",
    placeholder: "Bearer …",
  },
};

/** Same limits as the API's (server/control/integrations/integration-config.ts). */
export const integrationNameLengthMax = 100;
export const integrationSecretLengthMax = 512;

export function SecretField({ provider, existing }: { provider: IntegrationProvider; existing: IntegrationDto | null }) {
  const secret = secretLabels[provider];
  if (!secret) return null;
  return (
    <TextField
      label={existing ? `New ${secret.label.toLowerCase()}` : secret.label}
      name="secret"
      type="password"
      autoComplete="off"
      required={!existing}
      maxLength={integrationSecretLengthMax}
      placeholder={existing?.secret_last4 ? `Leave blank to keep the one ending ${existing.secret_last4}` : secret.placeholder}
      hint={secret.hint}
    />
  );
}

const text = (config: Record<string, unknown>, key: string) => (typeof config[key] === "string" ? (config[key] as string) : "");

export function ConfigFields({ provider, config }: { provider: IntegrationProvider; config: Record<string, unknown> }) {
  switch (provider) {
    case "revenuecat":
      return (
        <label class="switch-field">
          <input type="checkbox" name="accept_sandbox" defaultChecked={config.accept_sandbox === true} />
          <span>Also record sandbox purchases (for testing; their periods are accelerated)</span>
        </label>
      );
    case "app_store":
      return (
        <>
          <TextField label="Bundle id" name="bundle_id" required maxLength={155} defaultValue={text(config, "bundle_id")} placeholder="com.example.app" hint="Notifications for another app are refused." />
          <label class="switch-field">
            <input type="checkbox" name="accept_sandbox" defaultChecked={config.accept_sandbox === true} />
            <span>Also record sandbox notifications (for testing)</span>
          </label>
        </>
      );
    case "play_store":
      return (
        <>
          <TextField label="Package name" name="package_name" required maxLength={255} defaultValue={text(config, "package_name")} placeholder="com.example.app" />
          <TextAreaField
            label="Prices (JSON)"
            name="products"
            monospace
            rows={4}
            defaultValue={config.products === undefined ? "" : JSON.stringify(config.products, null, 2)}
            placeholder={'{"pro_monthly": {"amount_minor": 499, "currency": "EUR", "period": "month"}}'}
            hint="Google Play's notifications carry no price: give each product's price in minor units, its currency, and for a subscription its period (optionally period_count and free_trial)."
          />
        </>
      );
    case "stripe":
      return null;
  }
}

/** The config a submitted form stands for; throws with a sentence for prices that are not JSON. */
export function readConfig(provider: IntegrationProvider, fields: FormData): Record<string, unknown> {
  switch (provider) {
    case "revenuecat":
      return fields.get("accept_sandbox") === "on" ? { accept_sandbox: true } : {};
    case "app_store":
      return { bundle_id: fieldText(fields, "bundle_id").trim(), ...(fields.get("accept_sandbox") === "on" ? { accept_sandbox: true } : {}) };
    case "play_store": {
      const products = fieldText(fields, "products").trim();
      if (products === "") return { package_name: fieldText(fields, "package_name").trim() };
      let parsed: unknown;
      try {
        parsed = JSON.parse(products);
      } catch {
        throw new Error("Prices must be JSON, like {\"pro_monthly\": {\"amount_minor\": 499, \"currency\": \"EUR\", \"period\": \"month\"}}");
      }
      return { package_name: fieldText(fields, "package_name").trim(), products: parsed };
    }
    case "stripe":
      return {};
  }
}
