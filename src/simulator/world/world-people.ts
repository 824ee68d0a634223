import { DAY_MS, isoTime } from '../sim-days.js';
import { ENGINES } from './engines.js';
import type { Persona, Tag, Topic, WorldDraft } from './world-types.js';
import { CITIES, FIRST_NAMES, LANGUAGES, PERSONA_ROLES, SCENARIO_PATTERNS, TAG_NAMES } from './word-lists.js';

/** The brand's personas, tags and topics (with their scenarios); the last topic starts deleted. */
export function drawPeople(draft: WorldDraft): { personas: Persona[]; tags: Tag[]; topics: Topic[] } {
  const { rng, nextId, industry, brand, beforeStart } = draft;
  const personas = Array.from({ length: 3 }, (): Persona => {
    const [city, country] = rng.pick(CITIES);
    const role = rng.pick(PERSONA_ROLES);
    return {
      id: nextId(),
      name: `${rng.pick(FIRST_NAMES)}, ${role}`,
      description: `A ${role} looking for ${industry.name}.`,
      city,
      country,
      properties: {
        demographics: { age_range: rng.pick(['18-24', '25-34', '35-44', '45-64']) },
        interests: { primary: rng.pick(industry.productNouns) },
      },
    };
  });

  const tags: Tag[] = rng
    .sample(TAG_NAMES, 4)
    .map((tagName) => ({ id: nextId(), name: tagName, color: `#${rng.int(0x1000000).toString(16).padStart(6, '0')}` }));

  const topicNames = rng.sample(industry.topicNames, 7);
  const topics = topicNames.map((topicName, index): Topic => {
    const topicId = nextId();
    const created = beforeStart(300);
    const scenarioCount = rng.between(3, 5);
    const texts = new Set<string>();
    while (texts.size < scenarioCount) {
      texts.add(
        rng
          .pick(SCENARIO_PATTERNS)
          .replace('{noun}', rng.pick(industry.productNouns))
          .replace('{qualifier}', rng.pick(industry.qualifiers)),
      );
    }
    const scenarios = [...texts].map((text) => ({
      id: nextId(),
      topic_id: topicId,
      text,
      status: rng.chance(0.9) ? 'active' : 'paused',
      created_at: isoTime(created + rng.int(DAY_MS)),
    }));
    const engines = [...brand.engines] as string[];
    if (rng.chance(0.4)) {
      const extra = ENGINES.filter((e) => !engines.includes(e));
      engines.push(rng.pick(extra));
    }
    return {
      id: topicId,
      name: topicName,
      language: rng.pick(LANGUAGES),
      type: 'prompter',
      status: 'active',
      created_at: isoTime(created),
      answer_engines: engines,
      persona_id: rng.pick(personas).id,
      scenarios,
      tags: rng.sample(tags, rng.int(3)),
      // The last topic starts deleted, so restore (endpoint 5) has something to bring back.
      deleted: index === topicNames.length - 1,
    };
  });
  return { personas, tags, topics };
}
