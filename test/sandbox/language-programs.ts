// One probe program per language for the per-language sandbox tests: its first argument picks
// what it does (default `echo`: read a line, print "hello <line>"), so each compiled language is
// compiled once and run in every mode. Modes: exit (status 7), loop (forever), fork (processes
// without end), mem (16 MiB blocks, touched, kept), out (100 MB of output), bigfile (4 MiB into
// /tmp/big, printing WROTE when it all went in), net (a TCP connect to 1.1.1.1:80, printing
// CONNECTED when it worked), escape PATH... (create each path, printing ESCAPED for each one made).

export type ProbeLanguage = 'c' | 'go' | 'rust' | 'java' | 'typescript' | 'bash';

export const PROBES: Record<ProbeLanguage, string> = {
  c: String.raw`#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "echo";
  if (!strcmp(m, "echo")) { char line[256] = {0}; if (!fgets(line, sizeof line, stdin)) return 1; line[strcspn(line, "\n")] = 0; printf("hello %s\n", line); return 0; }
  if (!strcmp(m, "exit")) return 7;
  if (!strcmp(m, "loop")) { volatile unsigned long x = 0; for (;;) x++; }
  if (!strcmp(m, "fork")) { for (;;) fork(); }
  if (!strcmp(m, "mem")) { for (;;) { char *p = malloc(16 << 20); if (!p) { fprintf(stderr, "out of memory\n"); return 1; } memset(p, 1, 16 << 20); } }
  if (!strcmp(m, "out")) { char line[1024]; memset(line, 'y', 1023); line[1023] = '\n'; for (int i = 0; i < 100 * 1024; i++) fwrite(line, 1, 1024, stdout); return 0; }
  if (!strcmp(m, "bigfile")) { FILE *f = fopen("/tmp/big", "w"); if (!f) return 1; static char b[65536]; for (int i = 0; i < 64; i++) if (fwrite(b, 1, sizeof b, f) != sizeof b) { perror("write"); return 4; } if (fclose(f)) { perror("close"); return 4; } puts("WROTE"); return 0; }
  if (!strcmp(m, "net")) { int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(80); inet_pton(AF_INET, "1.1.1.1", &a.sin_addr); if (connect(s, (struct sockaddr *)&a, sizeof a)) { perror("connect"); return 3; } puts("CONNECTED"); return 0; }
  if (!strcmp(m, "escape")) { int ok = 0; for (int i = 2; i < argc; i++) { FILE *f = fopen(argv[i], "w"); if (f) { fclose(f); printf("ESCAPED %s\n", argv[i]); ok++; } else perror(argv[i]); } return ok ? 0 : 3; }
  return 1;
}
`,
  go: String.raw`package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	m := "echo"
	if len(os.Args) > 1 {
		m = os.Args[1]
	}
	switch m {
	case "echo":
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Printf("hello %s\n", strings.TrimSpace(line))
	case "exit":
		os.Exit(7)
	case "loop":
		for {
		}
	case "fork":
		for {
			exec.Command("/bin/sleep", "1000").Start()
		}
	case "mem":
		var keep [][]byte
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
		}
	case "out":
		line := strings.Repeat("y", 1023) + "\n"
		w := bufio.NewWriter(os.Stdout)
		for i := 0; i < 100*1024; i++ {
			w.WriteString(line)
		}
		w.Flush()
	case "bigfile":
		f, err := os.Create("/tmp/big")
		if err != nil {
			os.Exit(1)
		}
		b := make([]byte, 65536)
		for i := 0; i < 64; i++ {
			if _, err := f.Write(b); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(4)
			}
		}
		f.Close()
		fmt.Println("WROTE")
	case "net":
		c, err := net.DialTimeout("tcp", "1.1.1.1:80", 3*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		c.Close()
		fmt.Println("CONNECTED")
	case "escape":
		ok := 0
		for _, p := range os.Args[2:] {
			if f, err := os.Create(p); err == nil {
				f.Close()
				fmt.Println("ESCAPED", p)
				ok++
			} else {
				fmt.Fprintln(os.Stderr, err)
			}
		}
		if ok == 0 {
			os.Exit(3)
		}
	}
}
`,
  rust: String.raw`use std::io::{BufRead, Write};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let m = args.get(1).map(|s| s.as_str()).unwrap_or("echo");
    match m {
        "echo" => { let mut l = String::new(); std::io::stdin().lock().read_line(&mut l).unwrap(); println!("hello {}", l.trim()); }
        "exit" => std::process::exit(7),
        "loop" => loop {},
        "fork" => loop { let _ = std::process::Command::new("/bin/sleep").arg("1000").spawn(); },
        "mem" => { let mut keep: Vec<Vec<u8>> = Vec::new(); loop { keep.push(vec![1u8; 16 << 20]); } }
        "out" => { let line = "y".repeat(1023) + "\n"; let out = std::io::stdout(); let mut w = std::io::BufWriter::new(out.lock()); for _ in 0..100 * 1024 { if w.write_all(line.as_bytes()).is_err() { std::process::exit(1); } } }
        "bigfile" => { let mut f = std::fs::File::create("/tmp/big").unwrap(); let b = vec![0u8; 65536]; for _ in 0..64 { if let Err(e) = f.write_all(&b) { eprintln!("{}", e); std::process::exit(4); } } println!("WROTE"); }
        "net" => { let a: std::net::SocketAddr = "1.1.1.1:80".parse().unwrap(); match std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(3)) { Ok(_) => println!("CONNECTED"), Err(e) => { eprintln!("{}", e); std::process::exit(3); } } }
        "escape" => { let mut ok = 0; for p in &args[2..] { match std::fs::File::create(p) { Ok(_) => { println!("ESCAPED {}", p); ok += 1; } Err(e) => eprintln!("{}: {}", p, e) } } if ok == 0 { std::process::exit(3); } }
        _ => std::process::exit(1),
    }
}
`,
  // a nested class too: javac writes Main$Greeter.class, which must come back with Main.class
  java: `import java.io.*;
import java.net.*;
import java.util.*;

public class Main {
    static class Greeter { static String greet(String s) { return "hello " + s; } }

    public static void main(String[] args) throws Exception {
        String m = args.length > 0 ? args[0] : "echo";
        if (m.equals("echo")) {
            String l = new BufferedReader(new InputStreamReader(System.in)).readLine();
            System.out.println(Greeter.greet(l == null ? "" : l.trim()));
        } else if (m.equals("exit")) {
            System.exit(7);
        } else if (m.equals("loop")) {
            long x = 0;
            while (true) x++;
        } else if (m.equals("fork")) {
            while (true) { try { new ProcessBuilder("/bin/sleep", "1000").start(); } catch (IOException e) { } }
        } else if (m.equals("mem")) {
            List<byte[]> keep = new ArrayList<>();
            while (true) { byte[] b = new byte[16 << 20]; Arrays.fill(b, (byte) 1); keep.add(b); }
        } else if (m.equals("out")) {
            String line = "y".repeat(1023);
            PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
            for (int i = 0; i < 100 * 1024; i++) out.println(line);
            out.flush();
        } else if (m.equals("bigfile")) {
            try (FileOutputStream f = new FileOutputStream("/tmp/big")) {
                byte[] b = new byte[65536];
                for (int i = 0; i < 64; i++) f.write(b);
            } catch (IOException e) { System.err.println(e); System.exit(4); }
            System.out.println("WROTE");
        } else if (m.equals("net")) {
            try (Socket s = new Socket()) { s.connect(new InetSocketAddress("1.1.1.1", 80), 3000); System.out.println("CONNECTED"); }
            catch (IOException e) { System.err.println(e); System.exit(3); }
        } else if (m.equals("escape")) {
            int ok = 0;
            for (int i = 1; i < args.length; i++) {
                try { new FileOutputStream(args[i]).close(); System.out.println("ESCAPED " + args[i]); ok++; }
                catch (IOException e) { System.err.println(e); }
            }
            if (ok == 0) System.exit(3);
        }
    }
}
`,
  // type annotations and an interface: transpiling strips them
  typescript: String.raw`import * as fs from 'fs';
import * as net from 'net';
import { spawn } from 'child_process';
interface Greeting { text: string }
const greet = (s: string): Greeting => ({ text: 'hello ' + s });
const mode: string = process.argv[2] ?? 'echo';
switch (mode) {
  case 'echo': { const l: string = fs.readFileSync(0, 'utf8').split('\n')[0]!.trim(); console.log(greet(l).text); break; }
  case 'exit': process.exit(7);
  case 'loop': for (;;) {}
  case 'fork': for (;;) { try { spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']); } catch {} }
  case 'mem': { const keep: Buffer[] = []; for (;;) keep.push(Buffer.alloc(16 << 20, 1)); }
  case 'out': { const line = 'y'.repeat(1023) + '\n'; for (let i = 0; i < 100 * 1024; i++) process.stdout.write(line); break; }
  case 'bigfile': { try { const fd = fs.openSync('/tmp/big', 'w'); const b = Buffer.alloc(65536); for (let i = 0; i < 64; i++) fs.writeSync(fd, b); fs.closeSync(fd); console.log('WROTE'); } catch (e) { console.error((e as Error).message); process.exit(4); } break; }
  case 'net': { const s = net.connect(80, '1.1.1.1', () => { console.log('CONNECTED'); process.exit(0); }); s.on('error', (e: Error) => { console.error(e.message); process.exit(3); }); break; }
  case 'escape': { let ok = 0; for (const p of process.argv.slice(3)) { try { fs.writeFileSync(p, 'x'); console.log('ESCAPED', p); ok++; } catch (e) { console.error(p, (e as NodeJS.ErrnoException).code); } } if (!ok) process.exit(3); break; }
}
`,
  bash: `mode=\${1:-echo}
case "$mode" in
  echo) read -r line; echo "hello $line" ;;
  exit) exit 7 ;;
  loop) while :; do :; done ;;
  fork) f() { f | f; }; f ;;
  mem) s=xxxxxxxxxxxxxxxx; while :; do s="$s$s"; done ;;
  out) line=$(printf 'y%.0s' $(seq 1023)); for i in $(seq 102400); do echo "$line"; done ;;
  bigfile) head -c 4194304 /dev/zero > /tmp/big || exit 4; echo WROTE ;;
  net) if exec 3<>/dev/tcp/1.1.1.1/80; then echo CONNECTED; else exit 3; fi ;;
  escape) shift; ok=0; for p in "$@"; do if : > "$p"; then echo "ESCAPED $p"; ok=1; fi; done; [ $ok = 1 ] || exit 3 ;;
esac
`,
};

/** A program each language's compiler (or, for TypeScript, transpiler) rejects; bash has none. */
export const BROKEN: Record<Exclude<ProbeLanguage, 'bash'>, string> = {
  c: 'int main(void) { return nope; }\n',
  go: 'package main\n\nfunc main() { undefinedThing() }\n',
  rust: 'fn main() { let x: i32 = "no"; }\n',
  java: 'public class Main { public static void main(String[] a) { int x = "no"; } }\n',
  typescript: 'const x: number = ;\n',
};
