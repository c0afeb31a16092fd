/**
 * A source's settings, for the add form and the settings form alike. `forName` is said to
 * screen readers after each label, so several sources on a page keep their fields apart.
 */
export function SettingsFields(props: {
  id: string;
  values: { on_removed?: string; interval_minutes?: string; cross_host?: string; metadata?: string } | undefined;
  invalid: (field: string) => true | undefined;
  statusId: string;
  forName?: string;
}) {
  const { id, values, invalid, statusId, forName } = props;
  const hint = `${id}-interval-hint`;
  const suffix = forName ? <span className="sr-only"> for {forName}</span> : null;
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-2">
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-on-removed`} className="text-sm font-medium">
          When a page is gone{suffix}
        </label>
        {/* A select takes its defaultValue only when it mounts: the forms remount these fields after each submission. */}
        <select
          id={`${id}-on-removed`}
          name="on_removed"
          defaultValue={values?.on_removed || "propose"}
          aria-invalid={invalid("on_removed")}
          aria-describedby={statusId}
          className="rounded border border-slate-300 px-2 py-2 text-sm"
        >
          <option value="propose">Propose the removal</option>
          <option value="remove">Remove its document</option>
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-interval`} className="text-sm font-medium">
          Sync every (minutes){suffix}
        </label>
        <input
          id={`${id}-interval`}
          name="interval_minutes"
          type="number"
          min={5}
          step={1}
          inputMode="numeric"
          defaultValue={values?.interval_minutes}
          aria-invalid={invalid("interval_minutes")}
          aria-describedby={`${hint} ${statusId}`}
          className="w-36 rounded border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
      <p id={hint} className="pb-2 text-xs text-slate-600">
        Blank: synced only with Sync now. At least 5.
      </p>
      <div className="flex basis-full flex-col gap-1">
        <label htmlFor={`${id}-metadata`} className="text-sm font-medium">
          Metadata for its pages (JSON, optional){suffix}
        </label>
        <input
          id={`${id}-metadata`}
          name="metadata"
          defaultValue={values?.metadata}
          placeholder='{"product": "router"}'
          aria-invalid={invalid("metadata")}
          aria-describedby={statusId}
          className="max-w-xl rounded border border-slate-300 px-3 py-2 font-mono text-sm"
        />
      </div>
      <div className="flex basis-full flex-col gap-1">
        <label className="flex items-center gap-2 text-sm font-medium">
          <input
            type="checkbox"
            name="cross_host"
            value="on"
            defaultChecked={values?.cross_host === "on"}
            aria-describedby={`${id}-cross-host-hint ${statusId}`}
          />
          Follow other hosts{suffix}
        </label>
        <p id={`${id}-cross-host-hint`} className="text-xs text-slate-600">
          Off: a sitemap&apos;s entries on another host than its own are left out. On: those on public hosts are fetched too; hosts in
          FETCH_ALLOW_HOSTS never are.
        </p>
      </div>
    </div>
  );
}
