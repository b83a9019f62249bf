// Review lists at laptop widths: "Hide details" collapses the secondary columns (named by
// the button's data-collapse-columns, as the admin's column-<name> / field-<name> classes)
// and "Hide filters" the filter sidebar, so the text under review gets the room. The
// choice is kept in this browser; with none kept, both are collapsed below 1600 px.
const WIDE = 1600;

function setUp(button, cells, key) {
  const shownLabel = button.textContent;
  const hiddenLabel = button.dataset.showLabel;
  const apply = (collapsed) => {
    for (const cell of cells()) cell.hidden = collapsed;
    button.textContent = collapsed ? hiddenLabel : shownLabel;
    button.setAttribute("aria-pressed", String(collapsed));
  };
  const kept = localStorage.getItem(key);
  let collapsed = kept === null ? window.innerWidth < WIDE : kept === "collapsed";
  apply(collapsed);
  button.addEventListener("click", (event) => {
    event.preventDefault();
    collapsed = !collapsed;
    localStorage.setItem(key, collapsed ? "collapsed" : "shown");
    apply(collapsed);
  });
}

const details = document.querySelector("[data-collapse-columns]");
if (details) {
  const names = details.dataset.collapseColumns.split(/\s+/).filter(Boolean);
  const selector = names.map((name) => `#result_list .column-${name}, #result_list .field-${name}`);
  setUp(details, () => document.querySelectorAll(selector.join(", ")), "parable:review-details");
}
const filters = document.querySelector("[data-collapse-filters]");
if (filters) {
  setUp(filters, () => document.querySelectorAll("#changelist-filter"), "parable:review-filters");
}
