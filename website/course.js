// The course site's own script, on the index and every chapter: search (Pagefind's UI, which
// needs the site served), and the chapter list and outline folded away on a narrow screen.
"use strict";

// Beside the text on a wide screen (open), above it on a narrow one (closed until asked for):
// the same width at which course.css moves them.
const wide = window.matchMedia("(min-width: 1100px)");
function fold() {
  for (const details of document.querySelectorAll("details.course-fold")) details.open = wide.matches;
}
wide.addEventListener("change", fold);

// Pagefind's search box, or one line saying how to get search where it cannot work: a page
// opened as a file cannot read the index (browsers refuse file:// fetches), and a site built
// without the index has no pagefind-ui.js.
function startSearch() {
  const box = document.getElementById("search");
  if (!box) return;
  if (location.protocol === "file:" || typeof window.PagefindUI !== "function") {
    box.hidden = true;
    box.parentElement.querySelector(".course-search-note").hidden = false;
    return;
  }
  new window.PagefindUI({ element: "#search", showSubResults: true, showImages: false,
                          translations: { placeholder: "Search" } });
  // Pagefind's box has a placeholder and a title, but no name of its own for a screen reader.
  box.querySelector("input")?.setAttribute("aria-label", "Search the course");
}

document.addEventListener("DOMContentLoaded", () => {
  fold();
  startSearch();
});
