// The tenant's plan and this month's usage: emails counted so far against what the plan
// includes (or caps, on the free plan), how long logs are kept, and the price line by line.
import { readMailUsage } from "../../api/mail-api.ts";
import type { MailUsage } from "../../api/mail-types.ts";
import { formatMoney, formatNumber } from "../../format/numbers.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Loaded } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { UsageCounter } from "../keyed-service/usage-counter.tsx";
import { exactTime } from "../messaging/messaging-bits.tsx";

const money = (usage: MailUsage, minor: number) => formatMoney(minor, usage.price.currency.toUpperCase());

function UsageView({ usage }: { usage: MailUsage }) {
  const capped = usage.limit !== null;
  return (
    <>
      <dl class="gateway-counters">
        <UsageCounter label="Plan" value={usage.plan} meaning={`${formatNumber(usage.included_emails)} emails included a month; logs kept ${usage.log_retention_days === 1 ? "1 day" : `${usage.log_retention_days} days`}`} />
        <UsageCounter
          label={`Emails in ${usage.month}`}
          value={formatNumber(usage.emails)}
          meaning={capped ? `of ${formatNumber(usage.limit!)} this plan sends; the count resets ${exactTime(usage.resets_at)}` : `one per recipient; the count resets ${exactTime(usage.resets_at)}`}
        />
        <UsageCounter label="Price this month" value={money(usage, usage.price.total_minor)} meaning={`${money(usage, usage.price.monthly_minor)} a month${usage.price.tiers.length ? ", plus the emails past those included" : ""}`} />
      </dl>
      {capped && usage.emails >= usage.limit! && <p class="mail-domain-meaning">The month's emails are used up: sends are refused until the count resets, or move to a paid plan.</p>}
      {usage.price.tiers.length > 0 && (
        <section class="card table-card" aria-labelledby="mail-price-title">
          <div class="gateway-toolbar">
            <h2 id="mail-price-title" class="section-subtitle">Emails past those included</h2>
          </div>
          <DataTable
            caption="Price of the emails past those included, tier by tier"
            rows={usage.price.tiers}
            rowKey={(tier) => String(tier.first_email)}
            columns={[
              { label: "Emails", cell: (tier) => (tier.last_email === null ? `${formatNumber(tier.first_email)} and more` : `${formatNumber(tier.first_email)} to ${formatNumber(tier.last_email)}`) },
              { label: "Per 1,000", numeric: true, cell: (tier) => money(usage, tier.per_thousand_minor) },
              { label: "This month", numeric: true, cell: (tier) => formatNumber(tier.emails) },
              { label: "Amount", numeric: true, cell: (tier) => money(usage, tier.amount_minor) },
            ]}
          />
        </section>
      )}
    </>
  );
}

export function UsageTab({ apiKey }: { apiKey: string }) {
  const [usage, reload] = useResource(() => readMailUsage(apiKey), [apiKey]);
  return (
    <>
      <RefreshToolbar title="Usage" onRefresh={reload} />
      <Loaded resource={usage} what="the usage" onRetry={reload}>{(data) => <UsageView usage={data} />}</Loaded>
    </>
  );
}
