output.websites = {
    urls: [
        'foxnews.com',
        'allrecipes.com',
        'stackoverflow.com',
        'apmex.com',
        'linktr.ee',
        'es.wikipedia.org',
        'rottentomatoes.com',
        'medicalnewstoday.com',
        'costco.com',
        'bing.com',
        'speedtest.net'
    ],
    counter: 0,
    coldIterations: 40,
    warmIterations: 40,
    iterationCounter: 0
}
