import { Fragment } from "react";

export type SortValue = string | number;
export type SortDirection = "ascending" | "descending";
export interface SortState {
  column: string;
  direction: SortDirection;
}

export interface Column<Row> {
  id: string;
  header: React.ReactNode;
  cell: (row: Row) => React.ReactNode;
  /** Makes the header a sort button in a SortableTable; rows are ordered by this value. */
  sortValue?: (row: Row) => SortValue;
  /** The first click sorts descending, for columns whose largest values are the interesting ones. */
  descendingFirst?: boolean;
  /** Classes added to each of the column's cells. */
  className?: string;
}

export interface DataTableProps<Row> {
  /** Names the table unless `label` does; hidden unless captionClassName says otherwise. */
  caption: React.ReactNode;
  captionClassName?: string;
  label?: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  rowClassName?: (row: Row) => string;
  /** A row drawn its own way when this returns one, e.g. while it is edited in place. */
  customRow?: (row: Row) => React.ReactNode;
  /** Marks the rows as out of date while newer ones load. */
  busy?: boolean;
  sort?: SortState;
  onSort?: (column: Column<Row>) => void;
}

const ARROW: Record<SortDirection, string> = { ascending: "▲", descending: "▼" };

/** The app's table: a header row, one row per item, one cell per column; sort buttons when onSort is given. */
export function DataTable<Row>({ caption, captionClassName = "sr-only", label, columns, rows, rowKey, rowClassName, customRow, busy, sort, onSort }: DataTableProps<Row>) {
  return (
    <table aria-label={label} aria-busy={busy || undefined} className={`w-full rounded border border-slate-200 bg-white text-sm ${busy ? "opacity-60" : ""}`}>
      <caption className={captionClassName}>{caption}</caption>
      <thead className="bg-slate-100 text-left">
        <tr>
          {columns.map((c) => {
            const sortable = onSort && c.sortValue;
            const direction = sort?.column === c.id ? sort.direction : undefined;
            return (
              <th key={c.id} scope="col" className="px-3 py-2" aria-sort={sortable ? (direction ?? "none") : undefined}>
                {sortable ? (
                  <button type="button" onClick={() => onSort(c)} className="font-semibold hover:underline">
                    {c.header}
                    <span aria-hidden className="ml-1 text-slate-400">
                      {direction ? ARROW[direction] : "↕"}
                    </span>
                  </button>
                ) : (
                  c.header
                )}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <Fragment key={rowKey(row)}>
            {customRow?.(row) ?? (
              <tr className={`border-t border-slate-200 align-top ${rowClassName?.(row) ?? ""}`}>
                {columns.map((c) => (
                  <td key={c.id} className={`px-3 py-2 ${c.className ?? ""}`}>
                    {c.cell(row)}
                  </td>
                ))}
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
