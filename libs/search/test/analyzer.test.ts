import { cjkBigrams, createAnalyzer, createCjkSegmenter, splitIdentifier } from '@toolhub/search';

describe('splitIdentifier', () => {
  it('splits snake_case, kebab-case, dotted and camelCase names', () => {
    expect(splitIdentifier('get_user_by_id')).toEqual(['get', 'user', 'by', 'id']);
    expect(splitIdentifier('send-email')).toEqual(['send', 'email']);
    expect(splitIdentifier('math.factorial')).toEqual(['math', 'factorial']);
    expect(splitIdentifier('getUserByID')).toEqual(['get', 'User', 'By', 'ID']);
    expect(splitIdentifier('HTMLParser')).toEqual(['HTML', 'Parser']);
  });
});

describe('createAnalyzer', () => {
  const analyzer = createAnalyzer();

  it('keeps a compound name whole besides its words', () => {
    expect(analyzer.analyze('getUserByID')).toEqual(expect.arrayContaining(['get', 'user', 'id', 'get_user_by_id', 'getuserbyid']));
    expect(analyzer.analyze('GitHub')).toEqual(expect.arrayContaining(['github', 'git_hub']));
  });

  it('lowercases, strips accents, drops stop words and stems', () => {
    expect(analyzer.analyze('The Issues of a Café')).toEqual(['issu', 'cafe']);
  });

  it('folds generic synonyms to one term', () => {
    expect(analyzer.analyze('fetch')).toEqual(analyzer.analyze('retrieve'));
    expect(analyzer.analyze('remove')).toEqual(analyzer.analyze('delete'));
    expect(createAnalyzer({ synonyms: false }).analyze('fetch')).toEqual(['fetch']);
  });

  it('segments Chinese into words and leaves function words out', () => {
    const terms = analyzer.analyze('使用必应搜索指定的关键词');
    expect(terms).toEqual(expect.arrayContaining(['搜索', '指定']));
    expect(terms).not.toContain('的');
    expect(terms.every((t) => t.length < 6)).toBe(true);
  });

  it('handles Chinese and English in one text', () => {
    expect(analyzer.analyze('GitHub仓库搜索 issues')).toEqual(expect.arrayContaining(['github', '搜索', 'issu']));
  });

  it('segments Thai, which is also written without spaces', () => {
    expect(analyzer.analyze('ช่วยหาคุณแม่บ้านที่ให้บริการรีดผ้า')).toEqual(expect.arrayContaining(['บริการ']));
  });

  it('falls back to character bigrams without a word segmenter', () => {
    const bigrams = createAnalyzer({ cjkSegmenter: cjkBigrams });
    expect(bigrams.cjk).toBe('custom');
    expect(bigrams.analyze('搜索结果')).toEqual(['搜索', '索结', '结果']);
  });
});

describe('createCjkSegmenter', () => {
  it('uses ICU word segmentation on this Node', () => {
    const { kind, segment } = createCjkSegmenter();
    expect(kind).toBe('icu');
    expect(segment('搜索结果')).toEqual(['搜索', '结果']);
  });
});
