/** robots.txt rules as the store keeps them: the path patterns as written, compiled again when read back. */
import { robotsPathRule, type RobotsRules } from '../robots';
import type { StoredRobotsRules } from './node-store';

export function storedRobotsRules(rules: RobotsRules): StoredRobotsRules {
  return { allow: rules.allow.map((r) => r.pattern), disallow: rules.disallow.map((r) => r.pattern), crawlDelayMs: rules.crawlDelayMs, sitemaps: rules.sitemaps };
}

export function robotsRulesOf(stored: StoredRobotsRules): RobotsRules {
  return { allow: stored.allow.map(robotsPathRule), disallow: stored.disallow.map(robotsPathRule), crawlDelayMs: stored.crawlDelayMs ?? undefined, sitemaps: stored.sitemaps };
}
