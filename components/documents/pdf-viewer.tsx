"use client";

import { useEffect, useRef, useState } from "react";
import type { PDFDocumentProxy, RenderTask } from "pdfjs-dist";

type PdfJs = typeof import("pdfjs-dist");

let pdfjs: Promise<PdfJs> | null = null;

/** pdf.js, loaded in the browser only, with its parsing worker started once from the app's own bundle. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import("pdfjs-dist").then((lib) => {
    lib.GlobalWorkerOptions.workerPort = new Worker(new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url), { type: "module" });
    return lib;
  });
  return pdfjs;
}

interface Props {
  /** Where the PDF's bytes are (GET /api/agents/{id}/documents/{docId}/file). */
  src: string;
  filename: string;
  /** The page to open at, from 1; kept within the document's pages. */
  initialPage: number;
}

/**
 * A PDF shown one page at a time with pdf.js, opened at a chunk's page: previous, next, and a page
 * number to go to. The page shown is kept in the address (`?page=`), so it can be linked to.
 */
export function PdfViewer({ src, filename, initialPage }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [page, setPage] = useState(initialPage);
  const [rendered, setRendered] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [typed, setTyped] = useState(String(initialPage));

  useEffect(() => {
    let cancelled = false;
    let opened: PDFDocumentProxy | null = null;
    loadPdfJs()
      .then((lib) => lib.getDocument({ url: src, isEvalSupported: false }).promise)
      .then((d) => {
        opened = d;
        if (cancelled) return void d.destroy();
        setDoc(d);
        setPage((p) => Math.min(Math.max(1, p), d.numPages));
      })
      .catch((err: unknown) => {
        if (cancelled) return;
        console.error("PDF viewer:", err);
        setError("The PDF could not be opened: the file may be damaged, or no longer kept. Reload the page to try again.");
      });
    return () => {
      cancelled = true;
      void opened?.destroy();
    };
  }, [src]);

  useEffect(() => {
    if (!doc || !canvas.current) return;
    let task: RenderTask | null = null;
    let cancelled = false;
    setRendered(null);
    setTyped(String(page));
    const url = new URL(window.location.href);
    url.searchParams.set("page", String(page));
    window.history.replaceState(window.history.state, "", url);
    doc
      .getPage(page)
      .then((p) => {
        if (cancelled || !canvas.current) return;
        const natural = p.getViewport({ scale: 1 });
        const width = Math.max(320, frame.current?.clientWidth ?? natural.width);
        const ratio = window.devicePixelRatio || 1;
        const viewport = p.getViewport({ scale: (width / natural.width) * ratio });
        const c = canvas.current;
        c.width = Math.floor(viewport.width);
        c.height = Math.floor(viewport.height);
        c.style.width = `${Math.floor(viewport.width / ratio)}px`;
        task = p.render({ canvas: c, canvasContext: c.getContext("2d")!, viewport });
        return task.promise;
      })
      .then(() => {
        if (!cancelled) setRendered(page);
      })
      .catch((err: unknown) => {
        if (cancelled || (err as { name?: string }).name === "RenderingCancelledException") return;
        console.error("PDF viewer:", err);
        setError(`Page ${page} could not be shown: the file may be damaged. Try another page, or reload.`);
      });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, page]);

  const pages = doc?.numPages ?? 0;
  const go = (n: number) => setPage(Math.min(Math.max(1, n), pages));
  return (
    <section aria-label={`PDF viewer: ${filename}`} className="space-y-2">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <button
          type="button"
          onClick={() => go(page - 1)}
          disabled={!doc || page <= 1}
          className="rounded border border-slate-300 px-2 py-1 disabled:opacity-50"
        >
          Previous page
        </button>
        <button
          type="button"
          onClick={() => go(page + 1)}
          disabled={!doc || page >= pages}
          className="rounded border border-slate-300 px-2 py-1 disabled:opacity-50"
        >
          Next page
        </button>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const n = Number(typed);
            if (Number.isInteger(n)) go(n);
          }}
          className="flex items-center gap-1"
        >
          <label htmlFor="pdf-page">Page</label>
          <input
            id="pdf-page"
            inputMode="numeric"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            className="w-16 rounded border border-slate-300 px-1 py-0.5"
          />
          <span data-testid="pdf-page-count">of {doc ? pages : "…"}</span>
          <button type="submit" disabled={!doc} className="rounded border border-slate-300 px-2 py-1 disabled:opacity-50">
            Go
          </button>
        </form>
      </div>
      {error && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <div ref={frame} className="max-w-4xl overflow-auto rounded border border-slate-200 bg-slate-100 p-2">
        <canvas
          ref={canvas}
          role="img"
          aria-label={`Page ${page} of ${filename}`}
          data-testid="pdf-page"
          data-rendered-page={rendered ?? ""}
          className="mx-auto block bg-white shadow"
        />
      </div>
      <p aria-live="polite" className="sr-only">
        {rendered ? `Showing page ${rendered} of ${pages}` : "Loading the page"}
      </p>
    </section>
  );
}
