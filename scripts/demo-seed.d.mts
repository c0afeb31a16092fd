export const DEMO_EVAL_K: number;
export function demoArticles(dir: string): string[];
export function seedDemo(base: string, demoDir: string, log: (msg: string) => void): Promise<void>;
