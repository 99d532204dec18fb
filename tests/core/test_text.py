import pytest

from bot.core.text import clean_text, fold_key, strip_html, tex_to_unicode


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('Sch\\"on', "Schön"),
        ("Brand\\~ao and Falc\\~{a}o", "Brandão and Falcão"),
        ("{\\'E}cole", "École"),
        ("\\emph{x} and \\textbf{bold} and {GPT}", "x and bold and GPT"),
        ("rate $\\alpha>1$ and $\\mathbb{R}^N$", "rate $α>1$ and $ℝ^N$"),
        ("$\\kappa\\log m$", "$κ log m$"),
        ("90% of cases & 4.1\\% more", "90% of cases & 4.1% more"),
        ("hard\n  wrapped\n\tlines", "hard wrapped lines"),
        ("<p>We study &amp;amp; <i>things</i>.</p>", "We study & things."),
        ("e\u0301te\u0301", "été"),
        ("", ""),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


# Real arXiv abstracts (2025-05/06 listings), cut to the TeX that came out wrong before.
@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (
            "Code and data available $\\href{https://github.com/yukw777/tglg}{here}$",
            "Code and data available here (https://github.com/yukw777/tglg)",
        ),
        (
            "Our code is available at \\href{https://github.com/BIT-DA/ABS}{https://github.com/BIT-DA/ABS}.",
            "Our code is available at https://github.com/BIT-DA/ABS.",
        ),
        (
            "at: https://www.iitp.ac.in/~ai-nlp-ml/resources.html",
            "at: https://www.iitp.ac.in/~ai-nlp-ml/resources.html",
        ),
        ("released at \\url{https://x.org/~me/a_b\\%20c}", "released at https://x.org/~me/a_b%20c"),
        ("\\underline{\\textbf{M}}ixture of \\underline{\\textbf{E}}xperts", "Mixture of Experts"),
        ("\\textit{a}, \\texttt{b}, \\textsc{c}, \\emph{d}", "a, b, c, d"),
        ("a score of \\(\\ge0.97\\)", "a score of ≥0.97"),
        ("based on \\(N\\)-dimensional Gaussians", "based on $N$-dimensional Gaussians"),
        ("over {\\bf 2\\(\\times\\)} speedup", "over 2× speedup"),
        ("ranks \\(1^{\\text{st}}\\) in all metrics", "ranks $1^st$ in all metrics"),
        ("the improved PDE: \\[ u=\\nabla v \\]", "the improved PDE: $u=∇ v$"),
        ("a $\\Diamond_{\\Delta}$ operator", "a $◇_Δ$ operator"),
        ("exclude ``uncertain whales'', individuals", "exclude “uncertain whales”, individuals"),
        ("Vocal feedback (e.g., `mhm', `yeah')", "Vocal feedback (e.g., ‘mhm’, ‘yeah’)"),
        ("entities -- useful; method--direct; x---y", "entities – useful; method–direct; x—y"),
        ("SIMO vs.~SISO, a (~10% absolute) gain", "SIMO vs. SISO, a (~10% absolute) gain"),
        ("$60\\times$ faster, $90\\%$ of $1,405$", "60× faster, 90% of 1,405"),
        ("we propose D$^3$ and R$^{3}$, at $10^{-3}$", "we propose D³ and R³, at 10⁻³"),
        ("($+$18% on average) and ($<$5%)", "(+18% on average) and (<5%)"),
        ("$\\textit{perceptual updating}$ and $\\mathrm{m}^2$", "perceptual updating and $m^2$"),
        ("label$\\unicode{x2014}$shared by all", "label—shared by all"),
        ("the \\textbf{MC\\textsuperscript{2}} benchmark", "the MC² benchmark"),
        ("immersive 360{\\deg} content", "immersive 360° content"),
        ("We propose \\method, which", "We propose method, which"),
        (
            "effectiveness\\footnote{Our code is at https://x.org/a.",
            "effectiveness Our code is at https://x.org/a.",
        ),
        ("APIs\\footnote{We use tools}. Taking", "APIs (We use tools). Taking"),
        (
            "ratio, \\(\\frac{\\eta_E}{\\eta_W} \\propto \\frac{\\sigma}{x}\\), mitigates",
            "ratio, $η_E/η_W∝σ/x$, mitigates",
        ),
    ],
)
def test_tex_from_real_abstracts(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("$p(y | x; \\boldsymbol\\theta)$ and $\\pmb{v}$", "$p(y | x; θ)$ and $v$"),
        ("$\\boldsymbol{\\theta}$ and $\\mathbf{x}$", "$θ$ and $x$"),
        ("$\\frac{a}{b}$, $\\frac\\gamma2$, $\\dfrac{\\gamma}{2}$", "$a/b$, $γ/2$, $γ/2$"),
        ("$\\frac{a+b}{2}$ and $\\tfrac{1}{n-1}$", "$(a+b)/2$ and $1/(n-1)$"),
        ("$\\operatorname{MEC}(k,q)$, $\\operatorname*{arg\\,max}_x$", "$MEC(k,q)$, $arg max_x$"),
        ("$\\mathbb{R}$, $\\mathbb{E}$, $\\mathcal{L}$, $\\mathds{1}$", "$ℝ$, $𝔼$, $ℒ$, 𝟙"),
        ("$\\tau^{\\Delta,s}$ and $x_{i,j}$", "$τ^(Δ,s)$ and $x_(i,j)$"),
        ("$x^{2}$, $\\theta^{*}$, $e^{-1}$", "$x^2$, $θ^*$, $e^-1$"),
        ("$\\binom{n}{k}$ and $\\norm{x}_2$", "$C(n,k)$ and $‖x‖_2$"),
        (
            "$\\big( x \\Big)$ and $\\displaystyle\\sum_{i=1}^{n} x_i$",
            "$( x )$ and $∑_(i=1)^n x_i$",
        ),
        ("i.i.d.\\ observations", "i.i.d. observations"),
        ("at \\verb+github.com/a_b~c+ and \\verb|x|.", "at github.com/a_b~c and x."),
        ("the PDE \\[ u=\n\\nabla v \\] holds", "the PDE $u= ∇ v$ holds"),
        ("a wrapped $\\tau^{\\Delta,\ns}$", "a wrapped $τ^(Δ, s)$"),
    ],
)
def test_macros_with_arguments(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


# Real arXiv abstracts (2025-05/06, ../shared/data), cut to the TeX inside math and the quotes.
@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (
            "if the ratio $\\frac{\\sigma_{1}(\\nabla W_t)}{\\sigma_{1}(W_{t-1})}$ is larger",
            "if the ratio $σ_1(∇ W_t)/σ_1(W_(t-1))$ is larger",
        ),
        ("only $\\frac{\\text{response length}}{3}$. We", "only $(response length)/3$. We"),
        (
            "test functions $h:\\mathbb{R}^n \\times S^{n-1} \\to \\mathbb{R}$.",
            "test functions $h:ℝ^n × S^(n-1)→ℝ$.",
        ),
        ("the $\\ell_{2,0}$-norm constraint", "the $ℓ_(2,0)$-norm constraint"),
        ("metastatic burden ($N_{+(1-2)}$)", "metastatic burden ($N_(+(1-2))$)"),
        ("$E_X = [ E_{x_1} , \\dots, E_{x_T} ]^\\top$", "$E_X = [ E_(x_1) , …, E_(x_T) ]^⊤$"),
        ("$\\mathbf{W} \\approx \\mathbf{Q} + \\mathbf{L}\\mathbf{R}$", "$W≈Q + LR$"),
        ("the $\\mathsf{AC}^0$ and $\\mathtt{DPMA}$", "the $AC^0$ and $DPMA$"),
        ("bias ($0.05^\\circ$)", "bias (0.05°)"),
        ("(e.g.\\ crop, zoom)", "(e.g. crop, zoom)"),
        ("269 long videos (avg.\\ 86\\,min)", "269 long videos (avg. 86 min)"),
        (
            "improves \\change{the food object selection} in",
            "improves the food object selection in",
        ),
        ("where ${\\bW_q}$ and $\\bW_k$ are", "where $W_q$ and $W_k$ are"),
        ("(35 U.S.C {\\S} 112(b))", "(35 U.S.C § 112(b))"),
        ("an offline ''retrospection'' process", "an offline “retrospection” process"),
        ("(using ''hello'' and ''thank you'') and", "(using “hello” and “thank you”) and"),
        (
            "IQBench: How \"Smart'' Are Vision-Language Models?",
            "IQBench: How “Smart” Are Vision-Language Models?",
        ),
        ('the ``Fusion Network", was proposed', "the “Fusion Network”, was proposed"),
        (
            "may cause the LLMs \"overcorrect'': misidentify",
            "may cause the LLMs “overcorrect”: misidentify",
        ),
        ("straight \"quotes\" and ''TeX'' ones", 'straight "quotes" and “TeX” ones'),
    ],
)
def test_tex_inside_math_from_real_abstracts(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_tex_that_pylatexenc_cannot_read_is_kept() -> None:
    assert tex_to_unicode("\\verb|x") == "\\verb|x"  # no closing delimiter


def test_a_macro_cut_before_its_arguments_leaves_no_placeholder() -> None:
    assert clean_text("a \\frac b") == "a / b"


def test_plain_text_is_untouched_by_tex_and_html() -> None:
    text = "A plain abstract: 50 percent of 3 < 4 cases"
    assert tex_to_unicode(text) == text
    assert strip_html(text) == text


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Schön:  a KV-cache!", "schon a kv cache"),
        ("Quériaux", "queriaux"),
        ("  ", ""),
        ("snake_case", "snake case"),
    ],
)
def test_fold_key(text: str, key: str) -> None:
    assert fold_key(text) == key
