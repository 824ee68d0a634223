import { isoTime } from '../sim-days.js';
import type { ContentType, Ownership } from '../spec-enums.js';
import type { CitedPage, Competitor, TrackedUrl, UrlGroup, WorldDraft } from './world-types.js';
import { PAGE_SLUGS, THIRD_PARTY_SITES } from './word-lists.js';

/** The pages answers cite: the brand's own (most of them tracked, in groups), its competitors', third parties'. */
export function drawPages(draft: WorldDraft, competitors: ReadonlyArray<{ competitor: Competitor }>) {
  const { rng, nextId, industry, brand, beforeStart } = draft;
  const groups: UrlGroup[] = ['Product pages', 'Blog', 'Guides'].map((name) => ({ id: nextId(), name }));
  const sections: Array<[string, ContentType]> = [
    ['products', 'product_service_page'],
    ['blog', 'blog_article'],
    ['guides', 'documentation_knowledge_base'],
    ['stories', 'case_study'],
    ['press', 'press_release'],
  ];
  const ownPages: CitedPage[] = [];
  const ownPageWeights: number[] = [];
  const trackedUrls: TrackedUrl[] = [];
  for (let i = 0; i < 22; i++) {
    const [section, contentType] = sections[i % sections.length]!;
    const noun = industry.productNouns[i % industry.productNouns.length]!.replace(/\s+/g, '-');
    const url = `https://${brand.website}/${section}/${noun}-${PAGE_SLUGS[i % PAGE_SLUGS.length]}`;
    ownPages.push({ url, domain: brand.website, ownership: 'first_party', contentType, firstParty: true });
    const tracked = i < 16;
    ownPageWeights.push(tracked ? 3 : 1);
    if (tracked) {
      const group = i < 12 ? groups[i % groups.length] : undefined;
      trackedUrls.push({
        id: nextId(),
        url,
        title: `${industry.productNouns[i % industry.productNouns.length]} ${PAGE_SLUGS[i % PAGE_SLUGS.length]} | ${brand.name}`,
        created_at: isoTime(beforeStart(200)),
        ...(group ? { group_id: group.id } : {}),
      });
    }
  }

  const competitorPages = competitors.map(({ competitor }) =>
    ['', 'products', 'compare', 'blog'].map((section, k) => ({
      url: section
        ? `https://${competitor.website}/${section}/${PAGE_SLUGS[(k + competitor.id) % PAGE_SLUGS.length]}`
        : `https://${competitor.website}`,
      domain: competitor.website,
      ownership: 'competitor_owned' as const,
      contentType: (k === 0 ? 'product_service_page' : k === 2 ? 'comparison_vs_page' : 'blog_article') as ContentType,
      firstParty: false,
    })),
  );

  const thirdPartyPages = THIRD_PARTY_SITES.flatMap((site) =>
    Array.from({ length: 4 }, (_, k): CitedPage => {
      const noun = rng.pick(industry.productNouns).replace(/\s+/g, '-');
      return {
        url: `https://${site.domain}/${rng.pick(PAGE_SLUGS)}-${noun}-${k + 1}`,
        domain: site.domain,
        ownership: site.ownership as Ownership,
        contentType: rng.pick(site.contentTypes) as ContentType,
        firstParty: false,
      };
    }),
  );
  return { groups, trackedUrls, ownPages, ownPageWeights, competitorPages, thirdPartyPages };
}
