// The capabilities of a grader that calls a model server through the endpoint fields (base_url,
// api_key_env, api_key): network to the URL it reaches, and server_env wherever the URL or the key
// would come from this process's environment (OPENAI_BASE_URL, OPENAI_API_KEY, api_key_env).
import type { CapabilityUse } from '../core/capabilities.js';
import type { EndpointConfig } from './endpoint.js';

/**
 * `reach` maps the configured base URL (trailing slashes removed, as resolveEndpoint does) to the
 * URL requests go to; by default the base URL itself (chat and embeddings clients append fixed
 * path segments to it).
 */
export function endpointCapabilities(cfg: EndpointConfig, reach: (baseURL: string) => string = (b) => b): CapabilityUse[] {
  const uses: CapabilityUse[] = [];
  if (cfg.base_url === undefined) {
    uses.push({
      capability: 'server_env',
      field: 'base_url',
      reason: 'there is no "base_url", so the URL would come from the server\'s OPENAI_BASE_URL (else api.openai.com)',
    });
    uses.push({ capability: 'network', field: 'base_url', reason: 'calls a model server whose URL is not in the config' });
  } else {
    const url = reach(cfg.base_url.replace(/\/+$/, ''));
    uses.push({ capability: 'network', field: 'base_url', reason: `calls the model server at ${url}`, url });
  }
  if (cfg.api_key_env !== undefined) {
    uses.push({
      capability: 'server_env',
      field: 'api_key_env',
      reason: `reads the server's environment variable ${cfg.api_key_env} and sends it as the API key`,
    });
  } else if (cfg.api_key === undefined) {
    uses.push({
      capability: 'server_env',
      field: 'api_key',
      reason: 'there is no "api_key", so the server\'s OPENAI_API_KEY would be sent (give the key in the config, or "EMPTY" for a server without auth)',
    });
  }
  return uses;
}
