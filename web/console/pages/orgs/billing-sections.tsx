// The billing page's sections: plan, usage against the included volumes, invoices, the spend
// cap and the ingest stage. Everything shown comes from GET /app/orgs/{id}/billing.
import { useState } from "preact/hooks";
import { openPortal, paidPlans, setSpendCap, startCheckout, type BillingMeter, type BillingOverview } from "../../api/billing-api.ts";
import type { OrgDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { formatMoney, formatNumber, formatPercent } from "../../format/numbers.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { Fact, roleNoteId, SettingsSection } from "../settings/settings-section.tsx";
import { majorAmountText, notConfiguredReason, ownerOnlyReason, parseMajorAmount, planLabels } from "./billing-rules.ts";

const utc = "UTC";

export function PlanSection({ org, billing }: { org: OrgDto; billing: BillingOverview }) {
  const blocked = notConfiguredReason(billing) ?? ownerOnlyReason(org.role, "change the plan or manage billing");
  const describedBy = blocked ? roleNoteId("billing-plan") : undefined;
  const current = billing.subscription ? billing.plan.name : null;
  const [plan, setPlan] = useState<string>(paidPlans.find((name) => name !== current) ?? "starter");
  const checkout = useFormAction(async () => {
    const result = await startCheckout(org.id, plan);
    if (result.kind === "redirect") window.location.assign(result.url);
    else window.location.reload();
  });
  const portal = useFormAction(async () => {
    window.location.assign((await openPortal(org.id)).url);
  });
  const price = billing.plan.name === "self_hosted" ? "No price, no limits" : `${formatMoney(billing.plan.price_minor, billing.currency)} a month`;
  return (
    <SettingsSection id="billing-plan" title="Plan" blockedReason={blocked}>
      <dl class="facts">
        <Fact term="Plan"><span class="text-strong">{planLabels[billing.plan.name] ?? billing.plan.name}</span></Fact>
        <Fact term="Price">{price}</Fact>
        <Fact term="Subscription">{billing.subscription ? billing.subscription.status : "None"}</Fact>
        <Fact term="This period">{formatDateTime(billing.period.start, utc)} to {formatDateTime(billing.period.end, utc)}</Fact>
      </dl>
      <div class="billing-actions">
        <form class="form settings-form" onSubmit={checkout.onSubmit}>
          <FormError error={checkout.error} />
          <div class="inline-form">
            <SelectField label="Plan to move to" name="plan" value={plan} onChange={(event) => setPlan(event.currentTarget.value)} disabled={blocked !== null} aria-describedby={describedBy}>
              {paidPlans.map((name) => <option key={name} value={name} disabled={name === current}>{planLabels[name]}</option>)}
            </SelectField>
            <Button type="submit" variant="primary" busy={checkout.busy} disabled={blocked !== null} aria-describedby={describedBy}>Change plan</Button>
          </div>
        </form>
        <form class="form settings-form" onSubmit={portal.onSubmit}>
          <FormError error={portal.error} />
          <Button type="submit" busy={portal.busy} disabled={blocked !== null || !billing.payment_provider.has_customer} aria-describedby={describedBy}>Manage billing</Button>
          {blocked === null && !billing.payment_provider.has_customer && <p class="field-hint">Manage billing opens once a checkout has made the organisation a customer.</p>}
        </form>
      </div>
    </SettingsSection>
  );
}

function UsageBar({ label, used, meter }: { label: string; used: number; meter: BillingMeter | null }) {
  if (meter === null) {
    return (
      <div class="usage-meter">
        <div class="usage-meter-head"><span>{label}</span><span>{formatNumber(used)} (no limit)</span></div>
      </div>
    );
  }
  const share = meter.included > 0 ? used / meter.included : 1;
  return (
    <div class="usage-meter">
      <div class="usage-meter-head">
        <span>{label}</span>
        <span>{formatNumber(used)} of {formatNumber(meter.included)} included</span>
      </div>
      <div class={share > 1 ? "usage-bar usage-bar-over" : "usage-bar"} role="meter" aria-label={`${label} used`} aria-valuemin={0} aria-valuemax={meter.included} aria-valuenow={used}>
        <span style={{ width: `${Math.min(100, share * 100).toFixed(1)}%` }} />
      </div>
    </div>
  );
}

export function UsageSection({ billing }: { billing: BillingOverview }) {
  const { usage, plan, currency } = billing;
  return (
    <SettingsSection id="billing-usage" title="Usage this period" description="Events and replay recordings stored this period, as the regions counted them. Sampled-out events are not billed.">
      {usage.unreachable_regions.length > 0 && (
        <Alert tone="error">Regions {usage.unreachable_regions.join(", ")} did not answer: their usage is missing from these figures.</Alert>
      )}
      <UsageBar label="Events" used={usage.events} meter={plan.events} />
      <UsageBar label="Replay recordings" used={usage.replay_recordings} meter={plan.replay_recordings} />
      <dl class="facts">
        <Fact term="Current invoice">{formatMoney(billing.invoice.current_minor, currency)}</Fact>
        <Fact term="Projected invoice">{formatMoney(billing.invoice.projected_minor, currency)}</Fact>
        <Fact term="Events received">{formatNumber(usage.events_received)}</Fact>
      </dl>
    </SettingsSection>
  );
}

export function SpendCapSection({ org, billing, onSaved }: { org: OrgDto; billing: BillingOverview; onSaved: () => Promise<void> }) {
  const selfHosted = billing.plan.name === "self_hosted";
  const blocked = selfHosted ? "The self-hosted plan has no price, so it takes no spend cap." : ownerOnlyReason(org.role, "set the spend cap");
  const describedBy = blocked ? roleNoteId("billing-cap") : undefined;
  const [saved, setSaved] = useState(false);
  const form = useFormAction(async (fields) => {
    setSaved(false);
    const minor = parseMajorAmount(fieldText(fields, "spend_cap"));
    if (minor === null) throw new Error("type the cap as an amount, e.g. 49.00");
    await setSpendCap(org.id, minor);
    await onSaved();
    setSaved(true);
  });
  const money = (minor: number) => formatMoney(minor, billing.currency);
  return (
    <SettingsSection
      id="billing-cap"
      title="Spend cap"
      description="Past the cap, events are not cut off: capture keeps a random share of them so the period's invoice stays within the cap, and insights weight each kept event so counts stay right."
      blockedReason={blocked}
    >
      <dl class="facts">
        <Fact term="Spend cap">{billing.spend_cap_minor === null ? "None" : money(billing.spend_cap_minor)}</Fact>
        {billing.spend_cap_min_minor !== null && <Fact term="Lowest cap now">{money(billing.spend_cap_min_minor)}</Fact>}
      </dl>
      {!selfHosted && (
        <form class="form settings-form" onSubmit={form.onSubmit}>
          <FormError error={form.error} />
          {saved && <Alert tone="success">The spend cap is saved; capture follows it within a minute.</Alert>}
          <div class="inline-form">
            <TextField
              label={`New cap (${billing.currency.toUpperCase()})`}
              name="spend_cap"
              inputMode="decimal"
              required
              defaultValue={majorAmountText(billing.spend_cap_minor ?? billing.spend_cap_min_minor ?? 0)}
              disabled={blocked !== null}
              aria-describedby={describedBy}
            />
            <Button type="submit" variant="primary" busy={form.busy} disabled={blocked !== null} aria-describedby={describedBy}>Save cap</Button>
          </div>
        </form>
      )}
    </SettingsSection>
  );
}

export function IngestSection({ billing }: { billing: BillingOverview }) {
  const sampling = billing.ingest.stage === "sampling";
  return (
    <SettingsSection id="billing-ingest" title="Ingest">
      <dl class="facts">
        <Fact term="Stage"><span class="text-strong">{sampling ? "Sampling" : "Full"}</span></Fact>
        <Fact term="Events kept">{formatPercent(billing.ingest.keep_ratio)}</Fact>
      </dl>
      {sampling ? (
        <Alert tone="info">
          The projected usage passes the spend cap, so capture keeps {formatPercent(billing.ingest.keep_ratio)} of arriving events and
          recordings, chosen at random. Each kept event carries $sample_rate, and insights count it as {formatNumber(1 / billing.ingest.keep_ratio)} events,
          so totals stay estimates of everything sent; ingest answers list events in quota_limited. Raise the cap to keep every event again.
        </Alert>
      ) : (
        <p class="settings-description">Every accepted event is stored.</p>
      )}
    </SettingsSection>
  );
}
