/** Words the generator builds names from. Plain lists: the data only has to look plausible and differ by seed. */

export interface Industry {
  name: string;
  productNouns: string[];
  topicNames: string[];
  qualifiers: string[];
}

export const INDUSTRIES: Industry[] = [
  {
    name: 'outdoor gear',
    productNouns: [
      'trail shoes',
      'hiking boots',
      'rain jacket',
      'backpack',
      'tent',
      'sleeping bag',
      'headlamp',
      'trekking poles',
    ],
    topicNames: [
      'Hiking footwear',
      'Camping essentials',
      'Rain protection',
      'Ultralight packing',
      'Winter trekking',
      'Family camping',
      'Trail running',
      'Gear care',
    ],
    qualifiers: [
      'waterproof',
      'lightweight',
      'durable',
      'budget',
      'sustainable',
      'for beginners',
      'for wide feet',
      'for cold weather',
    ],
  },
  {
    name: 'personal finance',
    productNouns: [
      'credit card',
      'savings account',
      'budgeting app',
      'robo advisor',
      'travel card',
      'debit card',
      'loan',
      'pension plan',
    ],
    topicNames: [
      'Everyday banking',
      'Saving for a home',
      'Travel money',
      'Investing basics',
      'Student finance',
      'Retirement planning',
      'Small business banking',
      'Credit building',
    ],
    qualifiers: [
      'no fees',
      'high interest',
      'for students',
      'with cashback',
      'for freelancers',
      'mobile first',
      'low risk',
      'for families',
    ],
  },
  {
    name: 'home appliances',
    productNouns: [
      'robot vacuum',
      'air purifier',
      'espresso machine',
      'dishwasher',
      'washing machine',
      'air fryer',
      'blender',
      'dehumidifier',
    ],
    topicNames: [
      'Smart cleaning',
      'Kitchen upgrades',
      'Clean air at home',
      'Laundry day',
      'Coffee at home',
      'Energy saving',
      'Small apartments',
      'Pet owners',
    ],
    qualifiers: [
      'quiet',
      'energy efficient',
      'for pet hair',
      'compact',
      'smart',
      'for large families',
      'easy to clean',
      'affordable',
    ],
  },
  {
    name: 'software',
    productNouns: [
      'project tracker',
      'crm',
      'help desk',
      'password manager',
      'note app',
      'video editor',
      'backup service',
      'time tracker',
    ],
    topicNames: [
      'Team collaboration',
      'Customer support tools',
      'Security for small teams',
      'Remote work',
      'Sales pipelines',
      'Content creation',
      'Data backup',
      'Productivity',
    ],
    qualifiers: [
      'for startups',
      'open source',
      'with integrations',
      'for agencies',
      'self hosted',
      'free tier',
      'enterprise grade',
      'easy onboarding',
    ],
  },
];

export const BRAND_PREFIXES = [
  'North',
  'Blue',
  'Bright',
  'Summit',
  'Clear',
  'Nova',
  'Terra',
  'Vanta',
  'Lumen',
  'Atlas',
  'Orbit',
  'Cedar',
  'Harbor',
  'Pioneer',
  'Quartz',
  'Silver',
];
export const BRAND_SUFFIXES = [
  'wind',
  'peak',
  'line',
  'field',
  'works',
  'labs',
  'craft',
  'ridge',
  'wave',
  'stone',
  'path',
  'forge',
  'nest',
  'gate',
  'leaf',
  'point',
];

export const FIRST_NAMES = [
  'Ana',
  'Ben',
  'Chloe',
  'Dev',
  'Elif',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Liam',
  'Maya',
  'Noor',
  'Omar',
  'Priya',
];
export const CITIES: Array<[string, string]> = [
  ['Berlin', 'DE'],
  ['Lisbon', 'PT'],
  ['Austin', 'US'],
  ['Toronto', 'CA'],
  ['Lyon', 'FR'],
  ['Melbourne', 'AU'],
  ['Osaka', 'JP'],
  ['Leeds', 'GB'],
];
export const PERSONA_ROLES = [
  'budget-conscious parent',
  'first-time buyer',
  'seasoned expert',
  'small business owner',
  'student',
  'busy professional',
];

export const TAG_NAMES = [
  'priority',
  'seasonal',
  'brand',
  'product',
  'awareness',
  'comparison',
  'local',
  'experimental',
];

export const SCENARIO_PATTERNS = [
  'What is the best {noun} {qualifier}?',
  'Which {noun} should I buy {qualifier}?',
  'Compare the top {noun} brands {qualifier}',
  'Is a {qualifier} {noun} worth it?',
  'Recommend a {noun} {qualifier}',
  'What do reviewers say about {noun} {qualifier}?',
];

export const LANGUAGES = ['english', 'english', 'english', 'german', 'spanish'];

/** Third-party sites that answers cite, with the ownership and kind of page each publishes. */
export const THIRD_PARTY_SITES: Array<{ domain: string; ownership: string; contentTypes: string[] }> = [
  { domain: 'wikipedia.org', ownership: 'other', contentTypes: ['wikipedia_encyclopedia'] },
  { domain: 'reddit.com', ownership: 'social_ugc_platform', contentTypes: ['forum_thread_qa', 'social_media_post'] },
  { domain: 'youtube.com', ownership: 'social_ugc_platform', contentTypes: ['video'] },
  { domain: 'quora.com', ownership: 'social_ugc_platform', contentTypes: ['forum_thread_qa'] },
  { domain: 'nytimes.com', ownership: 'third_party_editorial', contentTypes: ['news_article', 'review_editorial'] },
  {
    domain: 'theverge.com',
    ownership: 'third_party_editorial',
    contentTypes: ['review_editorial', 'news_article', 'listicle_best_of'],
  },
  {
    domain: 'wirecutter.com',
    ownership: 'third_party_editorial',
    contentTypes: ['review_editorial', 'listicle_best_of', 'comparison_vs_page'],
  },
  {
    domain: 'techradar.com',
    ownership: 'third_party_editorial',
    contentTypes: ['listicle_best_of', 'review_editorial'],
  },
  {
    domain: 'consumerreports.org',
    ownership: 'third_party_editorial',
    contentTypes: ['review_editorial', 'research_paper_report'],
  },
  {
    domain: 'forbes.com',
    ownership: 'third_party_editorial',
    contentTypes: ['advertorial', 'listicle_best_of', 'news_article'],
  },
  {
    domain: 'tradeweekly.com',
    ownership: 'industry_trade_publication',
    contentTypes: ['news_article', 'press_release', 'case_study'],
  },
  { domain: 'industrydive.com', ownership: 'industry_trade_publication', contentTypes: ['news_article', 'case_study'] },
  { domain: 'energy.gov', ownership: 'government_regulatory', contentTypes: ['documentation_knowledge_base'] },
  {
    domain: 'ftc.gov',
    ownership: 'government_regulatory',
    contentTypes: ['documentation_knowledge_base', 'press_release'],
  },
  { domain: 'mit.edu', ownership: 'academic_research', contentTypes: ['research_paper_report'] },
  { domain: 'arxiv.org', ownership: 'academic_research', contentTypes: ['research_paper_report'] },
  {
    domain: 'amazon.com',
    ownership: 'aggregator_marketplace',
    contentTypes: ['product_service_page', 'review_user_generated'],
  },
  { domain: 'trustpilot.com', ownership: 'aggregator_marketplace', contentTypes: ['review_user_generated'] },
  {
    domain: 'g2.com',
    ownership: 'aggregator_marketplace',
    contentTypes: ['review_user_generated', 'comparison_vs_page'],
  },
  { domain: 'medium.com', ownership: 'social_ugc_platform', contentTypes: ['blog_article'] },
  { domain: 'podnews.net', ownership: 'other', contentTypes: ['podcast_transcript'] },
  { domain: 'localguide.net', ownership: 'other', contentTypes: ['blog_article', 'listicle_best_of'] },
];

export const PAGE_SLUGS = [
  'guide',
  'review',
  'best-picks',
  'comparison',
  'faq',
  'news',
  'how-to',
  'buying-advice',
  'top-10',
  'deep-dive',
];

export const SWOT_TEXTS: Record<string, string[]> = {
  strengths: ['Praised for build quality', 'Seen as good value for money', 'Strong customer service reputation'],
  weaknesses: [
    'Limited availability outside major markets',
    'Higher price than rivals',
    'Few reviews of newer products',
  ],
  opportunities: [
    'Growing demand for sustainable options',
    'Rising interest from first-time buyers',
    'Gaps in comparison content',
  ],
  threats: ['Competitors dominate best-of lists', 'Negative forum threads about returns', 'New low-cost entrants'],
};
