// Plain ESM: thrown by the readers, which also run unbundled in the extraction worker.

/** A file over one of the extraction limits; the caller turns it into a message for the user. */
export class LimitExceeded extends Error {
  /**
   * @param {"too_much_text" | "too_many_pages" | "too_many_scanned_pages"} code
   * @param {number} [pages] the page count, for too_many_pages
   */
  constructor(code, pages) {
    super(code);
    this.name = "LimitExceeded";
    this.code = code;
    this.pages = pages;
  }
}
