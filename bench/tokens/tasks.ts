/**
 * Realistic agent tasks for the token benchmark. Written before the benchmark was first run and
 * not tuned to its results: `queries` is what an agent would send to tool_search for the task,
 * `retry` what it would try when the first search shows no fitting tool.
 *
 * `needs` lists the tools a task needs, one group per need; any tool of a group does the job
 * (catalogs hold many equivalent tools). Tools are named `<server>/<native name>` as the catalog
 * spells them (`local/...` for the local adapter, `bfcl/...` for BFCL functions).
 */
export interface BenchTask {
  id: string;
  task: string;
  needs: string[][];
  queries: string[];
  retry: string[];
}

/** The preload set an operator would pick for general-purpose agents (about 5 tools). */
export const PRELOAD_KEYS = [
  'local/file_read',
  'local/file_list',
  'local/math_calculate',
  'duckduckgo-search MCP Server/duckduckgo_web_search',
  'Fetch MCP Server/fetch',
];

const BFCL_WEATHER = [
  'weather_forecast',
  'weather.forecast',
  'detailed_weather_forecast',
  'weather_forecast_precipitation',
  'weather_forecast.get',
  'weather_forecast_detailed',
  'api_name.get_weather_forecast',
  'Weather_1_GetWeather',
  'fetch_weather_data',
].map((n) => `bfcl/${n}`);

const BFCL_CURRENCY = [
  'currency_exchange.convert',
  'currency_converter',
  'currency_conversion.convert',
  'convert_currency',
  'currency_conversion',
  'latest_exchange_rate',
  'get_exchange_rate',
  'currency_conversion.get_latest_rate',
].map((n) => `bfcl/${n}`);

export const TASKS: BenchTask[] = [
  {
    id: 'read-and-count-words',
    task: 'Read notes.txt and tell me how many words it has.',
    needs: [['local/file_read', 'Filesystem MCP Server/read_file'], ['local/text_stats', 'bfcl/word_count']],
    queries: ['count words in text'],
    retry: ['word count', 'text statistics'],
  },
  {
    id: 'json-to-csv',
    task: 'Convert this JSON array of user records to CSV.',
    needs: [['local/data_json_to_csv']],
    queries: ['convert json to csv'],
    retry: ['csv export'],
  },
  {
    id: 'time-in-tokyo',
    task: 'What time is it in Tokyo right now?',
    needs: [['local/time_now', 'Time MCP Server/get_current_time', 'bfcl/time_zone_converter']],
    queries: ['current time in timezone'],
    retry: ['world clock', 'time zone'],
  },
  {
    id: 'weather-berlin',
    task: 'Will it rain in Berlin tomorrow?',
    needs: [['MCP Weather Free/get_weather_by_city', 'MCP Weather Free/get_weather', ...BFCL_WEATHER]],
    queries: ['weather forecast for a city'],
    retry: ['rain forecast', 'weather'],
  },
  {
    id: 'stock-price',
    task: "What is NVIDIA's stock price right now?",
    needs: [
      [
        'MCP Yahoo Finance/get_current_stock_price',
        'Yahoo Finance MCP Server/get_ticker_info',
        'bfcl/stock_price.get',
        'bfcl/get_stock_data',
        'bfcl/get_stock_price',
        'bfcl/stock_price',
        'bfcl/get_stock_info',
      ],
    ],
    queries: ['current stock price'],
    retry: ['stock quote ticker'],
  },
  {
    id: 'github-trending',
    task: 'Which Rust repositories are trending on GitHub this week?',
    needs: [['mcp-github-trending MCP Server/get_github_trending_repositories']],
    queries: ['github trending repositories'],
    retry: ['popular github repos'],
  },
  {
    id: 'web-search',
    task: 'Search the web for the latest Node.js LTS release.',
    needs: [['duckduckgo-search MCP Server/duckduckgo_web_search', 'Bing_CN_MCP/bing_search']],
    queries: ['web search'],
    retry: ['search engine'],
  },
  {
    id: 'usd-to-eur',
    task: 'Convert 250 US dollars to euros.',
    needs: [['Exchange Rate MCP Server/exchange_rate', ...BFCL_CURRENCY]],
    queries: ['currency conversion exchange rate'],
    retry: ['convert money usd eur'],
  },
  {
    id: 'translate',
    task: "Translate 'good morning, see you at the meeting' into Japanese.",
    needs: [['bfcl/translate', 'bfcl/translate_text', 'bfcl/language_translator.translate', 'bfcl/get_translation_nllb', 'bfcl/get_translation_baidu']],
    queries: ['translate text to another language'],
    retry: ['translation'],
  },
  {
    id: 'arxiv-papers',
    task: 'Find recent arXiv papers on retrieval-augmented generation.',
    needs: [['ArXiv MCP Server/search_papers', 'mcp-simple-arxiv/search_papers']],
    queries: ['search arxiv papers'],
    retry: ['research papers search'],
  },
  {
    id: 'git-log',
    task: 'Show me the last five commits of this repository.',
    needs: [['mcp-server-git: A git MCP server/git_log']],
    queries: ['git commit log'],
    retry: ['git history'],
  },
  {
    id: 'merge-pdfs',
    task: 'Merge report1.pdf and report2.pdf into one PDF.',
    needs: [['Simple Document Processing MCP Server/pdf_merger']],
    queries: ['merge pdf files'],
    retry: ['combine pdf'],
  },
  {
    id: 'sentry-issues',
    task: 'Find the Sentry issues about database timeouts from the last day.',
    needs: [['sentry-remote/search_issues']],
    queries: ['search sentry issues'],
    retry: ['error tracking issues'],
  },
  {
    id: 'percent-of',
    task: 'What is 17% of 2,340?',
    needs: [['local/math_calculate', 'Calculator MCP Server/calculate']],
    queries: ['calculator'],
    retry: ['math expression'],
  },
];
