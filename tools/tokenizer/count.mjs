// Prints the o200k_base token count of each file named on the command line, one JSON line
// per file: {"file", "chars", "tokens"}. gpt-tokenizer 4.0.0 is the tokenizer
// reference/agent-ui.md counted the browser snapshots with.
import { readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  console.log(JSON.stringify({ file, chars: text.length, tokens: encode(text).length }));
}
