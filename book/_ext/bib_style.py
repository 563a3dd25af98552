"""Bibliography with author-year labels ("Ba et al., 2016"), sorted by author and year
as a reader looks them up: by the name the label shows ("van Laarhoven" under v, with its
"van"), corporate authors ("{Gemma Team}") among the others rather than after "Zhu".

The entries' DOI, arXiv identifier (eprint) and URL are rendered as links by pybtex's unsrt
formatting, which this style extends.
"""

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        labels = [self.label(entry) for entry in sorted_entries]
        # Same authors and year twice: "LeCun et al., 1998a" and "..., 1998b".
        for label in set(labels):
            if labels.count(label) > 1:
                suffixes = iter("abcdefghij")
                labels = [l + next(suffixes) if l == label else l for l in labels]
        return labels

    @staticmethod
    def label(entry):
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [
            " ".join(p.prelast_names + p.last_names).replace("{", "").replace("}", "")
            for p in people
        ]
        if not names:
            who = entry.fields.get("organization", entry.key)
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        return f"{who}, {entry.fields.get('year', '')}"


class ReaderSorting(SortingStyle):
    def person_key(self, person):
        # Braces only protect a corporate name from being split; '{' sorts after 'z'.
        return super().person_key(person).replace("{", "").replace("}", "")


class AuthorYearStyle(UnsrtStyle):
    default_label_style = "authoryear"
    default_sorting_style = "reader"


def setup(app):
    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels)
    register_plugin("pybtex.style.sorting", "reader", ReaderSorting)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
