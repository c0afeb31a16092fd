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
  /** Names the cell in the stacked layout when the header is not plain text; "" gives the cell the card's whole width. */
  stackLabel?: string;
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
  /** On a phone, each row becomes a block with a labelled line per cell instead of a table that scrolls sideways. */
  stacked?: boolean;
}

const ARROW: Record<SortDirection, string> = { ascending: "▲", descending: "▼" };

// Below the sm breakpoint a stacked table draws each row as a block of labelled lines; the header row stays for screen readers only.
const STACK = {
  table: "max-sm:block",
  part: "max-sm:block",
  head: "max-sm:sr-only",
  row: "max-sm:block max-sm:py-2 max-sm:first:border-t-0",
  bare: "max-sm:block max-sm:py-1",
  cell: "max-sm:flex max-sm:gap-3 max-sm:py-1 max-sm:before:w-20 max-sm:before:shrink-0 max-sm:before:font-semibold max-sm:before:content-[attr(data-label)]",
};
const stackLabel = <Row,>(c: Column<Row>) => c.stackLabel ?? (typeof c.header === "string" ? c.header : "");

/** The app's table: a header row, one row per item, one cell per column; sort buttons when onSort is given. */
export function DataTable<Row>({
  caption,
  captionClassName = "sr-only",
  label,
  columns,
  rows,
  rowKey,
  rowClassName,
  customRow,
  busy,
  sort,
  onSort,
  stacked,
}: DataTableProps<Row>) {
  const on = (classes: string) => (stacked ? classes : "");
  return (
    // A table wider than the screen scrolls inside this box rather than widening the page.
    <div className="relative max-w-full overflow-x-auto">
      <table
        aria-label={label}
        aria-busy={busy || undefined}
        className={`w-full rounded border border-slate-200 bg-white text-sm ${busy ? "opacity-60" : ""} ${on(STACK.table)}`}
      >
        <caption className={`${captionClassName} ${on(STACK.part)}`}>{caption}</caption>
        <thead className={`bg-slate-100 text-left ${on(STACK.head)}`}>
          <tr>
            {columns.map((c) => {
              const sortable = onSort && c.sortValue;
              const direction = sort?.column === c.id ? sort.direction : undefined;
              return (
                <th key={c.id} scope="col" className="whitespace-nowrap px-3 py-2" aria-sort={sortable ? (direction ?? "none") : undefined}>
                  {sortable ? (
                    <button type="button" onClick={() => onSort(c)} className="font-semibold hover:underline">
                      {c.header}
                      <span aria-hidden className="ml-1 text-slate-500">
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
        <tbody className={on(STACK.part)}>
          {rows.map((row) => (
            <Fragment key={rowKey(row)}>
              {customRow?.(row) ?? (
                <tr className={`border-t border-slate-200 align-top ${on(STACK.row)} ${rowClassName?.(row) ?? ""}`}>
                  {columns.map((c) => (
                    <td
                      key={c.id}
                      data-label={stacked ? stackLabel(c) : undefined}
                      className={`px-3 py-2 ${on(stackLabel(c) ? STACK.cell : STACK.bare)} ${c.className ?? ""}`}
                    >
                      {stacked ? <div className="min-w-0 flex-1">{c.cell(row)}</div> : c.cell(row)}
                    </td>
                  ))}
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
