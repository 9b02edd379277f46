/**
 * The review's keybindings, as package.json declares them, for the CodeLens
 * tooltips and the README. Free of the `vscode` module.
 */

export const COMMANDS = {
  acceptHunk: 'surehand.review.acceptHere',
  rejectHunk: 'surehand.review.rejectHere',
  next: 'surehand.review.next',
  previous: 'surehand.review.previous',
  acceptFile: 'surehand.review.acceptFileHere',
  rejectFile: 'surehand.review.rejectFileHere',
  acceptAll: 'surehand.acceptAll',
  rejectAll: 'surehand.rejectAll',
} as const;

/** `key` (Windows, Linux) and `mac`, in package.json's notation. */
export const KEYS: Record<(typeof COMMANDS)[keyof typeof COMMANDS], { key: string; mac: string }> = {
  [COMMANDS.acceptHunk]: { key: 'ctrl+alt+y', mac: 'cmd+alt+y' },
  [COMMANDS.rejectHunk]: { key: 'ctrl+alt+n', mac: 'cmd+alt+n' },
  [COMMANDS.next]: { key: 'alt+f5', mac: 'alt+f5' },
  [COMMANDS.previous]: { key: 'shift+alt+f5', mac: 'shift+alt+f5' },
  [COMMANDS.acceptFile]: { key: 'ctrl+alt+shift+y', mac: 'cmd+alt+shift+y' },
  [COMMANDS.rejectFile]: { key: 'ctrl+alt+shift+n', mac: 'cmd+alt+shift+n' },
  [COMMANDS.acceptAll]: { key: 'ctrl+k ctrl+alt+y', mac: 'cmd+k cmd+alt+y' },
  [COMMANDS.rejectAll]: { key: 'ctrl+k ctrl+alt+n', mac: 'cmd+k cmd+alt+n' },
};

/** How a key reads: "Ctrl+Alt+Y", "⌥⌘Y" on a Mac, chords separated by a space. */
export function keyLabel(key: string, mac: boolean): string {
  const names: Record<string, string> = mac
    ? { cmd: '⌘', ctrl: '⌃', alt: '⌥', shift: '⇧' }
    : { cmd: 'Win', ctrl: 'Ctrl', alt: 'Alt', shift: 'Shift' };
  const order = mac ? ['ctrl', 'alt', 'shift', 'cmd'] : ['ctrl', 'shift', 'alt', 'cmd'];
  return key
    .split(' ')
    .map((chord) => {
      const parts = chord.split('+');
      const last = parts.pop() ?? '';
      const mods = order.filter((m) => parts.includes(m)).map((m) => names[m]);
      const main = last.length === 1 ? last.toUpperCase() : last.toUpperCase().replace(/^F(\d+)$/, 'F$1');
      return mac ? `${mods.join('')}${main}` : [...mods, main].join('+');
    })
    .join(' ');
}

/** "Accept (Ctrl+Alt+Y)" for `command`'s key on this platform; the words alone when it has none. */
export function withKey(words: string, command: string, mac: boolean): string {
  const key = (KEYS as Record<string, { key: string; mac: string }>)[command];
  return key === undefined ? words : `${words} (${keyLabel(mac ? key.mac : key.key, mac)})`;
}

/** What a decision key says when no review is open (it never falls through to another binding). */
export function noReviewText(command: string, mac: boolean): string {
  const key = (KEYS as Record<string, { key: string; mac: string }>)[command];
  return `surehand: no review is open for ${key === undefined ? 'this key' : keyLabel(mac ? key.mac : key.key, mac)} to act on.`;
}
