/**
 * The ten answer engines the public API names ("Shared query filters": engines). The spec omits the literal
 * strings, so these are the simulator's own plausible identifiers.
 */
export const ENGINES = [
  'chatgpt',
  'perplexity',
  'gemini',
  'claude',
  'copilot',
  'google_ai_overview',
  'google_ai_mode',
  'grok',
  'deepseek',
  'meta_ai',
] as const;

export type Engine = (typeof ENGINES)[number];
