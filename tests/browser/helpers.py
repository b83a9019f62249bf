"""Steps shared by the browser tests: an admin login, and the page's CSP violations."""


def admin_login(page, live_server, user) -> None:
    """Log `user` (password "<username>-pass", as the fixtures set it) into the admin."""
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", f"{user.username}-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")


def csp_violations(page) -> list[str]:
    """Console reports of Content-Security-Policy violations, as the page goes on."""
    found = []
    page.on(
        "console",
        lambda message: (
            found.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return found
