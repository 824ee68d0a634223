import type { AnswerFilter, AnswerStore } from '../world/answers.js';
import { isoTime } from '../sim-days.js';
import type { BrandWorld, TrackedUrl } from '../world/world-types.js';
import { ratio } from './wilson.js';

interface TrackedUrlCounts {
  /** Answers of the range the counts read (the same for every page). */
  conversations: number;
  /** Distinct answers citing each page (by normal-form URL), and the time of the first one. */
  citing: Map<string, { answers: number; first: number }>;
}

export function countCitedPages(store: AnswerStore, world: BrandWorld, filter: AnswerFilter): TrackedUrlCounts {
  let conversations = 0;
  const citing = new Map<string, { answers: number; first: number }>();
  store.forEach(world.brand.id, filter, (answer) => {
    conversations++;
    // An answer that cites the same page twice counts once.
    const urls = new Set(answer.citations.filter((c) => c.page.firstParty).map((c) => c.page.url));
    for (const url of urls) {
      const entry = citing.get(url);
      if (entry) {
        entry.answers++;
        if (answer.time < entry.first) entry.first = answer.time;
      } else citing.set(url, { answers: 1, first: answer.time });
    }
  });
  return { conversations, citing };
}

/** Endpoint 3's record of one tracked page: citations = answers of the range that cite it. */
export function trackedUrlRecord(world: BrandWorld, page: TrackedUrl, counts: TrackedUrlCounts) {
  const cited = counts.citing.get(page.url);
  const group = page.group_id === undefined ? undefined : world.groups.find((g) => g.id === page.group_id);
  return {
    id: page.id,
    url: page.url,
    title: page.title,
    created_at: page.created_at,
    citations: cited?.answers ?? 0,
    conversations: counts.conversations,
    citation_rate: ratio(cited?.answers ?? 0, counts.conversations),
    ...(cited ? { first_cited: isoTime(cited.first) } : {}),
    ...(group ? { group: { id: group.id, name: group.name } } : {}),
  };
}
