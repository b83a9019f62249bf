// Keyboard shortcuts of the rate and choose pages: number keys pick, Enter submits.
//   onTaskKeys({ number(n), enter() }) calls number(1..9) for a digit key and enter() for
//   Enter; keys typed into a text field, or held with Ctrl, Alt or Meta, are left alone.
export function onTaskKeys({ number, enter }) {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest("textarea, input[type=text], [contenteditable]")) {
      return;
    }
    if (/^[1-9]$/.test(event.key)) {
      if (number(Number(event.key))) event.preventDefault();
    } else if (event.key === "Enter" && enter) {
      event.preventDefault();
      enter();
    }
  });
}
