export { PriceTable, readPriceTable, PRICES_KEY, type ModelPrice, type PricedUsage } from './prices.js';
export { PRICING_CONFIG } from './config.js';
