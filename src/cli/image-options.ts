// The operator's image sources on the command line (`--image-dir`, `--image-url`, repeatable): the
// folders and URL prefixes model graders may read images from, handed to Services as `images`.
import { InvalidArgumentError, type Command } from 'commander';
import { parseUrlPrefix } from '../models/url-prefix.js';

const collect = (v: string, prev: string[]) => [...prev, v];

function urlPrefix(v: string, prev: string[]): string[] {
  try {
    parseUrlPrefix(v, 'image URL prefix');
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return [...prev, v];
}

export function addImageOptions(cmd: Command): Command {
  return cmd
    .option('--image-dir <dir>', 'a folder model graders may read image files from (repeatable; relative image paths are read under the first)', collect, [])
    .option('--image-url <prefix>', 'a URL prefix model graders may fetch images from, e.g. https://cdn.example.com/img/ (repeatable)', urlPrefix, []);
}

/** The Services `images` option from the parsed flags. */
export function imageSources(o: { imageDir?: string[]; imageUrl?: string[] }): { dirs: string[]; urls: string[] } {
  return { dirs: o.imageDir ?? [], urls: o.imageUrl ?? [] };
}
