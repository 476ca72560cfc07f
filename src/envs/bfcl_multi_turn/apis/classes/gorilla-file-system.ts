// GorillaFileSystem: BFCL's in-memory file system (pwd, ls, cd, mkdir, touch, echo, cat, find, wc,
// sort, grep, du, tail, diff, mv, rm, rmdir, cp), ported call for call. Directories share their
// contents dict the way the original's mv/cp do, names and contents keep whatever Python value a
// call stored, and long-context scenarios extend file contents and fill leaf directories.
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, method } from '../api.js';
import { PyException } from '../../../../py/errors.js';
import { formatFixed, pyRepr, pyStr } from '../../../../py/format.js';
import { truediv } from '../../../../py/num.js';
import { needStr, rstrip, sortedStrings, splitlines, splitWhitespace, strip } from '../../../../py/text.js';
import { MAX_NESTING, PyDict, PyObject, pyCompare, pyContains, pyEq, pyIter, pyLen, type PyValue, truthy, typeName } from '../../../../py/values.js';

export class File extends PyObject {
  readonly pyType = 'File';
  constructor(
    public name: PyValue,
    public content: PyValue = '',
  ) {
    super();
  }
  override pyEq(other: PyValue, depth: number): boolean {
    if (!(other instanceof File)) return false;
    return pyEq(this.name, other.name, depth + 1) && pyEq(this.content, other.content, depth + 1);
  }
  override pyRepr(depth: number): string {
    return `<<File: ${pyStr(this.name, depth + 1)}, Content: ${pyStr(this.content, depth + 1)}>>`;
  }
}

export class Directory extends PyObject {
  readonly pyType = 'Directory';
  contents: PyDict = new PyDict();
  constructor(
    public name: PyValue,
    public parent: Directory | null = null,
  ) {
    super();
  }
  override pyEq(other: PyValue, depth: number): boolean {
    if (depth > MAX_NESTING) throw new PyException('RecursionError', 'maximum recursion depth exceeded in comparison');
    if (!(other instanceof Directory)) return false;
    return pyEq(this.name, other.name, depth + 1) && pyEq(this.contents, other.contents, depth + 1);
  }
  override pyRepr(depth: number): string {
    if (depth > MAX_NESTING) throw new PyException('RecursionError', 'maximum recursion depth exceeded while getting the repr of an object');
    return `<Directory: ${pyStr(this.name, depth + 1)}, Parent: ${this.parent ? pyStr(this.parent.name, depth + 1) : 'None'}, Contents: ${pyRepr(this.contents, depth + 1)}>`;
  }
  addFile(name: PyValue, content: PyValue = ''): void {
    if (this.contents.has(name)) throw new PyException('ValueError', `File '${f(name)}' already exists in directory '${f(this.name)}'.`);
    this.contents.set(name, new File(name, content));
  }
  addDirectory(name: PyValue): void {
    if (this.contents.has(name)) throw new PyException('ValueError', `Directory '${f(name)}' already exists in directory '${f(this.name)}'.`);
    this.contents.set(name, new Directory(name, this));
  }
  getItem(name: PyValue): PyValue | undefined {
    if (name === '.') return this;
    return this.contents.get(name);
  }
}

const BAD_NAME_CHARS = [...'|/\\?%*:"><'];
const err = (message: string): PyDict => dict({ error: message });

export class GorillaFileSystem extends ApiInstance {
  longContext: PyValue = false;
  root: Directory = new Directory('/', null);
  currentDir: Directory = this.root;

  loadScenario(scenario: PyDict, longContext: boolean): void {
    this.longContext = longContext;
    this.root = new Directory('/', null);
    const root = scenario.get('root');
    if (root !== undefined) {
      if (!(root instanceof PyDict)) throw new PyException('AttributeError', `'${typeName(root)}' object has no attribute 'keys'`);
      const first = root.keys()[0];
      if (first === undefined) throw new PyException('IndexError', 'list index out of range');
      const rootDir = new Directory(first, null);
      this.root = this.loadDirectory(subscript(subscript(root, first), 'contents'), rootDir, 0);
    }
    this.currentDir = this.root;
  }

  private loadDirectory(current: PyValue, parent: Directory, depth: number): Directory {
    if (depth > MAX_NESTING) throw new PyException('RecursionError', 'maximum recursion depth exceeded');
    if (!(current instanceof PyDict)) throw new PyException('AttributeError', `'${typeName(current)}' object has no attribute 'items'`);
    let bottommost = true;
    for (const [name, data] of current.entries()) {
      this.env.spend();
      const type = subscript(data, 'type');
      if (pyEq(type, 'directory')) {
        bottommost = false;
        const d = this.loadDirectory(subscript(data, 'contents'), new Directory(name, parent), depth + 1);
        parent.contents.set(name, d);
      } else if (pyEq(type, 'file')) {
        let content = subscript(data, 'content');
        if (this.longContext === true && !pyContains(this.env.longContext('FILES_TAIL_USED'), name)) {
          const ext = this.env.longContext('FILE_CONTENT_EXTENSION');
          if (typeof content !== 'string') throw new PyException('TypeError', `unsupported operand type(s) for +=: '${typeName(content)}' and 'str'`);
          content = content + (ext as string);
        }
        parent.contents.set(name, new File(name, content));
      }
    }
    if (bottommost && this.longContext === true) {
      for (const name of pyIter(this.env.longContext('POPULATE_FILE_EXTENSION'))) parent.addFile(name, '');
    }
    return parent;
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['long_context', this.longContext],
      ['root', this.root],
    ];
  }

  private cwd(): PyDict {
    return this.currentDir.contents;
  }

  private validName(name: PyValue): boolean {
    for (const c of BAD_NAME_CHARS) if (pyContains(name, c)) return false;
    return true;
  }

  pwd(): PyValue {
    const path: PyValue[] = [];
    let dir: Directory | null = this.currentDir;
    // the original compares dir.name (a str) with self.root (a Directory): never equal
    while (dir !== null) {
      this.env.spend();
      path.push(dir.name);
      dir = dir.parent;
    }
    return dict({
      current_working_directory: `/${path
        .reverse()
        .map((p) => needStr(p, 'join'))
        .join('/')}`,
    });
  }

  ls(a: PyValue): PyValue {
    let contents = this.cwd().keys();
    this.env.spend(contents.length);
    if (!truthy(a)) contents = contents.filter((item) => !needStr(item, 'startswith').startsWith('.'));
    return dict({ current_directory_content: contents });
  }

  cd(folderArg: PyValue): PyValue {
    let folder = rstrip(needStr(folderArg, 'rstrip'), '/');
    if (folder === '') folder = '/';
    if (folder !== '.' && folder !== '..' && folder !== '/' && folder.includes('/')) {
      return err(`cd: ${folder}: Unsupported path. Only one folder level at a time is supported.`);
    }
    if (folder === '..') {
      if (this.currentDir.parent) this.currentDir = this.currentDir.parent;
      else if (pyEq(this.root, this.currentDir)) return err('Current directory is already the root. Cannot go back.');
      else return err('cd: ..: No such directory');
      return new PyDict();
    }
    const target = this.navigate(folder);
    if (target instanceof PyDict) return target;
    this.currentDir = target;
    return dict({ current_working_directory: target.name });
  }

  mkdir(dirName: PyValue): PyValue {
    if (!this.validName(dirName)) return err(`mkdir: cannot create directory '${f(dirName)}': Invalid character`);
    if (this.cwd().has(dirName)) return err(`mkdir: cannot create directory '${f(dirName)}': File exists`);
    this.currentDir.addDirectory(dirName);
    return null;
  }

  touch(fileName: PyValue): PyValue {
    if (!this.validName(fileName)) return err(`touch: cannot touch '${f(fileName)}': Invalid character`);
    if (this.cwd().has(fileName)) return err(`touch: cannot touch '${f(fileName)}': File exists`);
    this.currentDir.addFile(fileName);
    return null;
  }

  echo(content: PyValue, fileName: PyValue): PyValue {
    if (fileName === null) return dict({ terminal_output: content });
    if (!this.validName(fileName)) return err(`echo: cannot write to '${f(fileName)}': Invalid character`);
    if (truthy(fileName)) {
      if (this.cwd().has(fileName)) {
        const item = this.currentDir.getItem(fileName);
        if (!(item instanceof File)) throw new PyException('AttributeError', `'${typeName(item ?? null)}' object has no attribute '_write'`);
        item.content = content;
        return null;
      }
      return err(`echo: cannot write to '${f(fileName)}': No such file`);
    }
    return dict({ terminal_output: content });
  }

  cat(fileName: PyValue): PyValue {
    if (!this.validName(fileName)) return err(`cat: '${f(fileName)}': Invalid character`);
    if (this.cwd().has(fileName)) {
      const item = this.currentDir.getItem(fileName);
      if (item instanceof File) return dict({ file_content: item.content });
      return err(`cat: '${f(fileName)}': Is a directory`);
    }
    return err(`cat: '${f(fileName)}': No such file or directory`);
  }

  find(path: PyValue, name: PyValue): PyValue {
    const matches: PyValue[] = [];
    const target = this.navigate(path);
    if (target instanceof PyDict) {
      const original = needStr(target.get('error') ?? '', 'startswith');
      if (original.startsWith('cd:')) return err(original.replace('cd:', 'find:'));
      return target;
    }
    const search = (directory: Directory, base: string, depth: number): void => {
      if (depth > MAX_NESTING) throw new PyException('RecursionError', 'maximum recursion depth exceeded');
      for (const [itemName, item] of directory.contents.entries()) {
        this.env.spend();
        const itemPath = `${base}/${f(itemName)}`;
        if (name === null || pyContains(itemName, name)) matches.push(itemPath);
        if (item instanceof Directory) search(item, itemPath, depth + 1);
      }
    };
    search(target, rstrip(needStr(path, 'rstrip'), '/'), 0);
    return dict({ matches });
  }

  private file(name: PyValue): File | undefined {
    if (!this.cwd().has(name)) return undefined;
    const item = this.currentDir.getItem(name);
    return item instanceof File ? item : undefined;
  }

  private lines(content: PyValue): string[] {
    const lines = splitlines(needStr(content, 'splitlines'));
    this.env.spend(lines.length);
    return lines;
  }

  wc(fileName: PyValue, mode: PyValue): PyValue {
    if (!pyContains(['l', 'w', 'c'], mode)) return err(`wc: invalid mode '${f(mode)}'`);
    const file = this.file(fileName);
    if (file) {
      if (pyEq(mode, 'l')) return dict({ count: BigInt(this.lines(file.content).length), type: 'lines' });
      if (pyEq(mode, 'w')) return dict({ count: BigInt(splitWhitespace(needStr(file.content, 'split')).length), type: 'words' });
      return dict({ count: pyLen(file.content), type: 'characters' });
    }
    return err(`wc: ${f(fileName)}: No such file or directory`);
  }

  sort(fileName: PyValue): PyValue {
    const file = this.file(fileName);
    if (file) return dict({ sorted_content: sortedStrings(this.lines(file.content)).join('\n') });
    return err(`sort: ${f(fileName)}: No such file or directory`);
  }

  grep(fileName: PyValue, pattern: PyValue): PyValue {
    const file = this.file(fileName);
    if (file) return dict({ matching_lines: this.lines(file.content).filter((line) => pyContains(line, pattern)) });
    return err(`grep: ${f(fileName)}: No such file or directory`);
  }

  du(humanReadable: PyValue): PyValue {
    const size = (item: PyValue, depth: number): bigint => {
      if (depth > MAX_NESTING) throw new PyException('RecursionError', 'maximum recursion depth exceeded');
      this.env.spend();
      if (item instanceof File) return utf8Length(needStr(item.content, 'encode'));
      if (item instanceof Directory) {
        let total = 0n;
        for (const child of item.contents.values()) total += size(child, depth + 1);
        return total;
      }
      return 0n;
    };
    let total: PyValue = size(this.currentDir, 0);
    let text: string | undefined;
    if (truthy(humanReadable)) {
      for (const unit of ['B', 'KB', 'MB', 'GB', 'TB']) {
        if (pyCompare(total, 1024n, '<')) {
          text = `${formatFixed(typeof total === 'bigint' ? Number(total) : (total as number), 2)} ${unit}`;
          break;
        }
        total = truediv(total, 1024n);
      }
      text ??= `${formatFixed(total as number, 2)} PB`;
    } else text = `${f(total)} bytes`;
    return dict({ disk_usage: text });
  }

  tail(fileName: PyValue, linesArg: PyValue): PyValue {
    const file = this.file(fileName);
    if (file) {
      const content = this.lines(file.content);
      let lines = linesArg;
      if (pyCompare(lines, BigInt(content.length), '>')) lines = BigInt(content.length);
      return dict({ last_lines: sliceFromNegated(content, lines).join('\n') });
    }
    return err(`tail: ${f(fileName)}: No such file or directory`);
  }

  diff(name1: PyValue, name2: PyValue): PyValue {
    if (this.cwd().has(name1) && this.cwd().has(name2)) {
      const a = this.currentDir.getItem(name1);
      const b = this.currentDir.getItem(name2);
      if (a instanceof File && b instanceof File) {
        const l1 = this.lines(a.content);
        const l2 = this.lines(b.content);
        const out: string[] = [];
        for (let i = 0; i < Math.min(l1.length, l2.length); i++) if (l1[i] !== l2[i]) out.push(`- ${l1[i]}\n+ ${l2[i]}`);
        return dict({ diff_lines: out.join('\n') });
      }
    }
    return err(`diff: ${f(name1)} or ${f(name2)}: No such file or directory`);
  }

  mv(source: PyValue, destination: PyValue): PyValue {
    if (!this.cwd().has(source)) return err(`mv: cannot move '${f(source)}': No such file or directory`);
    const item = this.currentDir.getItem(source);
    if (!(item instanceof File || item instanceof Directory)) return err(`mv: cannot move '${f(source)}': Not a file or directory`);
    if (pyContains(destination, '/')) return err('mv: path not allowed in destination. Provide only a file or directory name.');
    if (this.cwd().has(destination)) {
      const dest = this.currentDir.getItem(destination);
      if (dest instanceof Directory) {
        if (dest.contents.has(source)) return err(`mv: cannot move '${f(source)}' to '${f(destination)}/${f(source)}': File exists`);
        this.cwd().pop(source);
        if (item instanceof File) dest.addFile(source, item.content);
        else {
          dest.addDirectory(source);
          (dest.contents.item(source) as Directory).contents = item.contents;
        }
        return dict({ result: `'${f(source)}' moved to '${f(destination)}/${f(source)}'` });
      }
      return err(`mv: cannot move '${f(source)}' to '${f(destination)}': Not a directory`);
    }
    this.cwd().pop(source);
    if (item instanceof File) this.currentDir.addFile(destination, item.content);
    else {
      this.currentDir.addDirectory(destination);
      (this.cwd().item(destination) as Directory).contents = item.contents;
    }
    return dict({ result: `'${f(source)}' moved to '${f(destination)}'` });
  }

  rm(fileName: PyValue): PyValue {
    if (this.cwd().has(fileName)) {
      const item = this.currentDir.getItem(fileName);
      if (item instanceof File || item instanceof Directory) {
        this.cwd().pop(fileName);
        return dict({ result: `'${f(fileName)}' removed` });
      }
      return err(`rm: cannot remove '${f(fileName)}': Not a file or directory`);
    }
    return err(`rm: cannot remove '${f(fileName)}': No such file or directory`);
  }

  rmdir(dirName: PyValue): PyValue {
    if (this.cwd().has(dirName)) {
      const item = this.currentDir.getItem(dirName);
      if (item instanceof Directory) {
        if (item.contents.size > 0) return err(`rmdir: cannot remove '${f(dirName)}': Directory not empty`);
        this.cwd().pop(dirName);
        return dict({ result: `'${f(dirName)}' removed` });
      }
      return err(`rmdir: cannot remove '${f(dirName)}': Not a directory`);
    }
    return err(`rmdir: cannot remove '${f(dirName)}': No such file or directory`);
  }

  cp(source: PyValue, destination: PyValue): PyValue {
    if (!this.cwd().has(source)) return err(`cp: cannot copy '${f(source)}': No such file or directory`);
    const item = this.currentDir.getItem(source);
    if (!(item instanceof File || item instanceof Directory)) return err(`cp: cannot copy '${f(source)}': Not a file or directory`);
    if (pyContains(destination, '/')) return err('cp: path not allowed in destination. Provide only a file or directory name.');
    if (this.cwd().has(destination)) {
      const dest = this.currentDir.getItem(destination);
      if (dest instanceof Directory) {
        if (dest.contents.has(`${f(destination)}/${f(source)}`)) return err(`cp: cannot copy '${f(source)}' to '${f(destination)}/${f(source)}': File exists`);
        if (item instanceof File) dest.addFile(source, item.content);
        else {
          dest.addDirectory(source);
          (dest.contents.item(source) as Directory).contents = item.contents.copy();
        }
        return dict({ result: `'${f(source)}' copied to '${f(destination)}/${f(source)}'` });
      }
      return err(`cp: cannot copy '${f(source)}' to '${f(destination)}': Not a directory`);
    }
    if (item instanceof File) this.currentDir.addFile(destination, item.content);
    else {
      this.currentDir.addDirectory(destination);
      (this.cwd().item(destination) as Directory).contents = item.contents.copy();
    }
    return dict({ result: `'${f(source)}' copied to '${f(destination)}'` });
  }

  private navigate(path: PyValue): Directory | PyDict {
    if (path === null || pyEq(path, '.')) return this.currentDir;
    if (pyEq(path, '/')) return this.root;
    const p = needStr(path, 'strip');
    const dirs = strip(p, '/').split('/');
    let temp = p.startsWith('/') ? this.root : this.currentDir;
    for (const name of dirs) {
      this.env.spend();
      const next = temp.getItem(name);
      if (next instanceof Directory) temp = next;
      else return err(`cd: '${p}': No such file or directory`);
    }
    return temp;
  }
}

/** `d[key]` on a value that should be a dict (initial_config parsing). */
function subscript(d: PyValue, key: PyValue): PyValue {
  if (!(d instanceof PyDict)) {
    if (Array.isArray(d)) throw new PyException('TypeError', 'list indices must be integers or slices, not str');
    throw new PyException('TypeError', `'${typeName(d)}' object is not subscriptable`);
  }
  return d.item(key);
}

function utf8Length(s: string): bigint {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      n += 4;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      throw new PyException('UnicodeEncodeError', `'utf-8' codec can't encode character '\\u${c.toString(16)}' in position ${i}: surrogates not allowed`);
    } else n += 3;
  }
  return BigInt(n);
}

/** `content[-lines:]`. */
function sliceFromNegated(items: string[], lines: PyValue): string[] {
  if (typeof lines !== 'bigint' && typeof lines !== 'boolean') {
    throw new PyException('TypeError', 'slice indices must be integers or None or have an __index__ method');
  }
  const n = typeof lines === 'boolean' ? (lines ? 1n : 0n) : lines;
  let start = -n;
  const len = BigInt(items.length);
  if (start < 0n) start += len;
  if (start < 0n) start = 0n;
  if (start > len) start = len;
  return items.slice(Number(start));
}

type FS = GorillaFileSystem;
export const GorillaFileSystemClass: ApiClass<FS> = {
  name: 'GorillaFileSystem',
  create: (env: BfclEnv) => new GorillaFileSystem(env),
  methods: {
    cat: method<FS>(['file_name'], (s, [a]) => s.cat(a!)),
    cd: method<FS>(['folder'], (s, [a]) => s.cd(a!)),
    cp: method<FS>(['source', 'destination'], (s, [a, b]) => s.cp(a!, b!)),
    diff: method<FS>(['file_name1', 'file_name2'], (s, [a, b]) => s.diff(a!, b!)),
    du: method<FS>([['human_readable', () => false]], (s, [a]) => s.du(a!)),
    echo: method<FS>(['content', ['file_name', () => null]], (s, [a, b]) => s.echo(a!, b!)),
    find: method<FS>(
      [
        ['path', () => '.'],
        ['name', () => null],
      ],
      (s, [a, b]) => s.find(a!, b!),
    ),
    grep: method<FS>(['file_name', 'pattern'], (s, [a, b]) => s.grep(a!, b!)),
    ls: method<FS>([['a', () => false]], (s, [a]) => s.ls(a!)),
    mkdir: method<FS>(['dir_name'], (s, [a]) => s.mkdir(a!)),
    mv: method<FS>(['source', 'destination'], (s, [a, b]) => s.mv(a!, b!)),
    pwd: method<FS>([], (s) => s.pwd()),
    rm: method<FS>(['file_name'], (s, [a]) => s.rm(a!)),
    rmdir: method<FS>(['dir_name'], (s, [a]) => s.rmdir(a!)),
    sort: method<FS>(['file_name'], (s, [a]) => s.sort(a!)),
    tail: method<FS>(['file_name', ['lines', () => 10n]], (s, [a, b]) => s.tail(a!, b!)),
    touch: method<FS>(['file_name'], (s, [a]) => s.touch(a!)),
    wc: method<FS>(['file_name', ['mode', () => 'l']], (s, [a, b]) => s.wc(a!, b!)),
  },
};
