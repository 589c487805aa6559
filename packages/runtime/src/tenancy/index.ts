export { addressGroup } from './address-group.js';
export { callerOf, shareKey, type Caller } from './caller.js';
export { FairShare, ShareExceededError, type Lease, type ShareLimits } from './fair-share.js';
export { RateLimiter, RateLimitedError, type RateLimits } from './rate-limiter.js';
export { anonymousOwner, isOwner, newOwnerKey, ownerOf, principalOwner, type Owner } from './owner.js';
