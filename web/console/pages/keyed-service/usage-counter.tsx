// One figure of a service's usage (the gateway's, the mail API's) as a card: what is counted,
// the figure, and what it means. The cards stand in a `<dl class="gateway-counters">`.
export function UsageCounter({ label, value, meaning }: { label: string; value: string; meaning: string }) {
  return (
    <div class="card gateway-counter">
      <dt>{label}</dt>
      <dd>
        <span class="gateway-counter-value">{value}</span>
        <span class="gateway-counter-meaning">{meaning}</span>
      </dd>
    </div>
  );
}
