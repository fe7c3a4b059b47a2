/**
 * A choice of tier. The tiers come from the tiers document; a value the document no longer has
 * (a tenant left on a removed tier) stays listed, so the select never silently shows another tier
 * than the one in force.
 */
export function TierSelect({ id, value, tiers, onChange, disabled, invalid, describedBy }: {
  id: string;
  value: string;
  tiers: string[];
  onChange: (tier: string) => void;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string;
}) {
  const known = value === '' || tiers.includes(value);
  return (
    <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)} aria-invalid={invalid || undefined} aria-describedby={describedBy}>
      {!known && <option value={value}>{value}</option>}
      {tiers.map((t) => (
        <option key={t} value={t}>
          {t}
        </option>
      ))}
    </select>
  );
}
