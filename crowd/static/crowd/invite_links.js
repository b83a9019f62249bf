// The invite links page: a Copy button beside each link, and the table as a CSV download
// (worker, what the link opens, link). Cells a spreadsheet would run as a formula get a
// leading ' as in the dataset exports.
const table = document.getElementById("invite-links");

async function copy(field, button) {
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    field.select();
    document.execCommand("copy");
  }
  button.textContent = "Copied";
  setTimeout(() => {
    button.textContent = "Copy";
  }, 2000);
}

function cell(value) {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csv() {
  const lines = [["worker", "opens", "link"]];
  for (const row of table.querySelectorAll("tbody tr")) {
    lines.push([row.dataset.worker, row.dataset.opens, row.querySelector("input").value]);
  }
  return lines.map((line) => line.map(cell).join(",")).join("\r\n") + "\r\n";
}

function download() {
  const url = URL.createObjectURL(new Blob([csv()], { type: "text/csv" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = "worker-links.csv";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

if (table) {
  table.addEventListener("click", (event) => {
    const button = event.target instanceof Element && event.target.closest("[data-copy]");
    if (button) copy(button.closest("tr").querySelector("input"), button);
  });
  document.getElementById("links-csv").addEventListener("click", download);
}
