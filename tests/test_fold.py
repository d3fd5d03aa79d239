from tasks.settle.fold import fold, fold_quotes, fold_whitespace


def test_sizing_and_spacing_commands_fold_away():
    assert fold(r"force $\left( F \right)$ of $3\,\mathrm{~N}$") == fold(r"force $(F)$ of $3~\mathrm{N}$")


def test_spaces_inside_maths_fold_but_control_words_stay_apart():
    assert fold(r"$a + b = c$") == fold(r"$a+b=c$")
    assert fold(r"$\alpha x$") != fold(r"$\alphax$")


def test_separator_lines_and_blank_lines_fold():
    assert fold("step one\n\n---\n\nstep two") == fold("step one\n\nstep two")


def test_image_links_compare_by_file_name():
    assert fold("![](media/a/ramp.png)") == fold("![a ramp](ramp.png){ width=30% }")
    assert fold("![](ramp.png)") != fold("![](slope.png)")


def test_words_still_differ():
    assert fold("the block slides") != fold("the block rests")
    assert fold(r"$x^2$") != fold(r"$x^3$")


def test_curly_quotes_fold_only_for_the_export_comparison():
    assert fold("the block’s mass") != fold("the block's mass")
    assert fold_quotes("the block’s mass") == fold_quotes("the block's mass")


def test_fold_whitespace():
    assert fold_whitespace("  a\n\n b\tc ") == "a b c"


def test_empty_groups_and_single_character_braces_fold():
    assert fold(r"$\vec{\chi}_\mathrm{}(t)$") == fold(r"$\vec{\chi}(t)$")
    assert fold(r"$n_{0}$ and $x^{2}$") == fold(r"$n_0$ and $x^2$")
    assert fold(r"$x^{23}$") != fold(r"$x^23$")


def test_spacer_paragraphs_fold_away():
    assert fold("Find $n$.\n\n&#x20;\n\n(Note the units.)") == fold("Find $n$.\n\n(Note the units.)")
