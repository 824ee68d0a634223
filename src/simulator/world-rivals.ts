import { website } from './world-names.js';
import type { Competitor, WorldDraft } from './world-types.js';

/** The brand's ten competitors, each with how strongly answers favour it. */
export function drawCompetitors(draft: WorldDraft): Array<{ competitor: Competitor; strength: number }> {
  const { rng, nextId, uniqueName } = draft;
  const competitors: Array<{ competitor: Competitor; strength: number }> = [];
  for (let i = 0; i < 10; i++) {
    const competitorName = uniqueName();
    competitors.push({
      // The last three are the platform's suggestions (is_actual false, endpoint 7).
      competitor: { id: nextId(), name: competitorName, website: website(competitorName), is_actual: i < 7 },
      strength: 0.15 + rng.next() * 0.45,
    });
  }
  return competitors;
}
