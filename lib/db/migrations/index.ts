import { migration as m001 } from "./001-agents-documents-tool-calls";
import { migration as m002 } from "./002-pairs-eval-runs";
import { migration as m003 } from "./003-eval-query-weighting";
import { migration as m004 } from "./004-ids-never-reused";
import { migration as m005 } from "./005-tool-call-source";
import { migration as m006 } from "./006-chunks";
import { migration as m007 } from "./007-late-writes";
import { migration as m008 } from "./008-chunk-strategy";
import { migration as m009 } from "./009-sweeps";
import { migration as m010 } from "./010-max-distance";
import { migration as m011 } from "./011-answerable";
import { migration as m012 } from "./012-tool-call-outcome";
import { migration as m013 } from "./013-keyword-index";
import { migration as m014 } from "./014-eval-retrieval-mode";
import { migration as m015 } from "./015-keyword-index-per-agent";
import { migration as m016 } from "./016-unreachable-chunks";
import { migration as m017 } from "./017-revoked-sessions";
import { migration as m018 } from "./018-chunk-vectors";
import { migration as m019 } from "./019-index-recall";
import { migration as m020 } from "./020-questions";
import { migration as m021 } from "./021-dismissed-questions";
import { migration as m022 } from "./022-sources";
import { migration as m023 } from "./023-index-check";
import { migration as m024 } from "./024-source-cross-host";
import { migration as m025 } from "./025-chunk-curation";
import { migration as m026 } from "./026-drafts";
import { migration as m027 } from "./027-keyword-index-deletes";
import { migration as m028 } from "./028-document-metadata";
import { migration as m029 } from "./029-rerankers";
import { migration as m030 } from "./030-coverage";
import { migration as m031 } from "./031-agent-maps";
import { migration as m032 } from "./032-chunk-context";
import { migration as m033 } from "./033-document-ocr";
import { migration as m034 } from "./034-pdf-pages";
import type { Migration } from "./migration";

export type { Migration } from "./migration";

/**
 * Every schema version, in order: entry i moves a database from user_version i to i + 1. Each
 * lives in its own numbered file and is never edited once shipped; a change to the schema is a
 * new file added at the end.
 */
export const STEPS: readonly Migration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m006,
  m007,
  m008,
  m009,
  m010,
  m011,
  m012,
  m013,
  m014,
  m015,
  m016,
  m017,
  m018,
  m019,
  m020,
  m021,
  m022,
  m023,
  m024,
  m025,
  m026,
  m027,
  m028,
  m029,
  m030,
  m031,
  m032,
  m033,
  m034,
];

/** The SQL of each version, in order (what the tests build an old database from). */
export const MIGRATIONS: readonly string[] = STEPS.map((m) => m.sql);
