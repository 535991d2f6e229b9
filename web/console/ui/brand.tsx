// The product's mark and name.
export function BrandMark({ size = 24 }: { size?: number }) {
  return (
    <svg class="brand-mark" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" class="brand-mark-tile" />
      <path d="M9 22v-5M16 22V10M23 22v-8" class="brand-mark-bars" stroke-width="3.2" stroke-linecap="round" />
    </svg>
  );
}

export function Brand() {
  return (
    <span class="brand">
      <BrandMark />
      <span class="brand-name">svc-analytics</span>
    </span>
  );
}
