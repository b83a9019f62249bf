// Behaviour of the admin pages, kept out of the HTML so that the Content-Security-Policy
// can allow scripts from this site only (no inline handlers):
//   data-select-on-click   the field's text is selected when clicked (invite links)
//   data-confirm="..."     a click asks this question first; "Cancel" stops the action
//   data-submit-on-change  a change of this field submits its form (filters)
document.addEventListener("click", (event) => {
  const target = event.target;
  if (!(target instanceof Element)) return;
  if (target.matches("[data-select-on-click]")) target.select();
  const guarded = target.closest("[data-confirm]");
  if (guarded && !window.confirm(guarded.dataset.confirm)) event.preventDefault();
});

document.addEventListener("change", (event) => {
  const target = event.target;
  if (target instanceof Element && target.matches("[data-submit-on-change]") && target.form) {
    target.form.requestSubmit();
  }
});
